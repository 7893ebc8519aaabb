//! `manifest.yaml` of a package.

use crate::kind::DslKind;
use std::path::Path;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::{LoadOptions, Node, NodeKind};

#[derive(Clone, Debug, Default)]
/// What a package's `manifest.yaml` declares.
pub struct Manifest {
    /// `FullName`: the package's name.
    pub full_name: String,
    /// Semver text, coerced (`1` is `1.0.0`).
    pub version: String,
    /// Runtime format version: `1.0` .. `1.4`.
    pub format: String,
    /// `Type`: `Application` or `Library`.
    pub kind: String,
    /// class name -> file under `Classes/`
    pub(super) classes: Vec<(String, String)>,
    /// `Require`: package names with their version ranges, when given.
    pub require: Vec<(String, Option<String>)>,
}

/// `1` -> `1.0.0`, `1.2` -> `1.2.0`.
fn coerce_version(v: &str) -> String {
    let mut parts: Vec<&str> = v.trim().split('.').collect();
    while parts.len() < 3 {
        parts.push("0");
    }
    parts.join(".")
}

fn text(n: &Node) -> Option<String> {
    n.scalar_text().filter(|_| !n.is_null())
}

impl Manifest {
    /// Read the manifest file `path` (its text goes into `sources`).
    pub fn load(path: &Path, sources: &mut SourceMap) -> Result<Manifest, Vec<Diagnostic>> {
        let (_, docs) = vetro_yaml::load_file(path, sources, &LoadOptions::default())?;
        Manifest::from_docs(&path.display().to_string(), &docs)
    }

    /// The manifest in `bytes`, named `name` in diagnostics.
    pub(super) fn parse(
        name: &str,
        bytes: &[u8],
        sources: &mut SourceMap,
    ) -> Result<Manifest, Vec<Diagnostic>> {
        let docs = super::load_yaml_bytes(name, bytes, sources, &LoadOptions::default())?.1;
        Manifest::from_docs(name, &docs)
    }

    fn from_docs(name: &str, docs: &[Node]) -> Result<Manifest, Vec<Diagnostic>> {
        let Some(root) = docs.first().and_then(Node::as_map) else {
            return Err(vec![Diagnostic::error(
                DslKind::Manifest,
                format!("{name}: the manifest is not a mapping"),
            )]);
        };
        let full_name = root.get("FullName").and_then(text).ok_or_else(|| {
            vec![Diagnostic::error(
                DslKind::Manifest,
                "the manifest has no FullName",
            )]
        })?;
        let format = match root.get("Format").and_then(text) {
            None => "1.0".to_string(),
            Some(f) => {
                let v = f.strip_prefix("MuranoPL/").unwrap_or(&f).to_string();
                if f.starts_with("Heat.HOT") {
                    f
                } else if ["1.0", "1.1", "1.2", "1.3", "1.4", "1"].contains(&v.as_str()) {
                    if v == "1" {
                        "1.0".into()
                    } else {
                        v
                    }
                } else {
                    return Err(vec![Diagnostic::error(
                        DslKind::Manifest,
                        format!("Unsupported format {f}"),
                    )]);
                }
            }
        };
        let version = coerce_version(&root.get("Version").and_then(text).unwrap_or("0.0.0".into()));
        let mut classes = Vec::new();
        if let Some(m) = root.get("Classes").and_then(Node::as_map) {
            for (k, v) in m.iter() {
                if let (Some(k), Some(v)) = (text(k), text(v)) {
                    classes.push((k, v));
                }
            }
        }
        let mut require = Vec::new();
        if let Some(NodeKind::Map(m)) = root.get("Require").map(|n| &n.kind) {
            for (k, v) in m.iter() {
                if let Some(k) = text(k) {
                    require.push((k, text(v)));
                }
            }
        }
        Ok(Manifest {
            full_name,
            version,
            format,
            kind: root.get("Type").and_then(text).unwrap_or_default(),
            classes,
            require,
        })
    }
}
