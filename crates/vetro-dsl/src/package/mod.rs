//! Packages: a directory (or the `tests` classes folder) with a manifest and
//! class files. Loading yields class definitions plus a per-file report of the
//! expressions found and the methods compiled (for `check --expressions`).

mod archive;
pub mod catalog;
mod manifest;
mod version;

pub use archive::{read_zip, write_zip, ArchiveError, ArchiveLimits};
pub use catalog::{Catalog, CatalogError, ClassRef, Resolved, Resolver, BUNDLED_PACKAGE};
pub use manifest::Manifest;
pub use version::{Version, VersionSpec};

use crate::kind::DslKind;
use crate::syntax::class::{defines_class, read_class, read_namespaces, DocContext};
use crate::syntax::data::{DataReader, DocPath, FoundExpr, PathSeg};
use crate::syntax::{ClassDef, Namespaces};
use indexmap::IndexMap;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::{LoadOptions, YamlVersion};

/// What loading one class file found.
#[derive(Clone, Debug, Default)]
pub struct FileReport {
    /// Path relative to the package root, `Classes/X.yaml`.
    pub file: String,
    pub(crate) documents: usize,
    /// Every YAQL expression of the file (for `check --expressions`).
    pub expressions: Vec<FoundExpr>,
    /// (method, compiled, error)
    pub(crate) methods: Vec<(String, bool, Option<String>)>,
    pub(crate) class_names: Vec<String>,
}

/// The files of a package held in memory: path inside the package (with
/// `/`, e.g. `Classes/App.yaml`, `Resources/deploy.sh`) -> contents.
pub type PackageFiles = BTreeMap<String, Vec<u8>>;

#[derive(Debug, Default)]
/// A loaded package: its manifest, its classes and what was wrong with it.
pub struct Package {
    /// The manifest's `FullName`.
    pub name: String,
    /// The manifest's `Version`.
    pub version: String,
    /// The manifest's `Format` (MuranoPL `1.0` .. `1.4`).
    pub format: String,
    /// The manifest's `Require`: package names with their version ranges.
    pub requires: Vec<(String, Option<String>)>,
    /// The package's folder (the archive's name for one loaded from memory).
    pub root: PathBuf,
    /// The classes the package defines, by full name.
    pub classes: IndexMap<String, Arc<ClassDef>>,
    /// What was read from each class file.
    pub files: Vec<FileReport>,
    /// Errors and warnings found loading the package.
    pub problems: Vec<Diagnostic>,
    /// Every file of a package loaded from memory or an archive (resources
    /// are read from here); `None` for a directory (read from `root`).
    pub contents: Option<std::sync::Arc<PackageFiles>>,
}

/// Decode and load YAML `bytes` as the source `name`.
pub(crate) fn load_yaml_bytes(
    name: &str,
    bytes: &[u8],
    sources: &mut SourceMap,
    opts: &LoadOptions,
) -> Result<(vetro_diag::FileId, Vec<vetro_yaml::Node>), Vec<Diagnostic>> {
    let text = vetro_yaml::decode_strict_at(bytes).map_err(|msg| {
        vec![Diagnostic::error(
            vetro_diag::Kind::Encoding,
            format!("{name}:{msg}"),
        )]
    })?;
    let id = sources.add(name.to_string(), text);
    let docs = vetro_yaml::load_str(sources, id, opts)?;
    Ok((id, docs))
}

/// Load one class file. `default_name` is the class the package maps to it.
fn load_class_file(
    path: &Path,
    rel: &str,
    sources: &mut SourceMap,
    default_name: Option<&str>,
    test_methods_public: bool,
) -> (Vec<ClassDef>, FileReport, Vec<Diagnostic>) {
    let loaded = vetro_yaml::load_file(path, sources, &class_yaml());
    read_class_docs(loaded, rel, default_name, test_methods_public)
}

/// Class files are YAML 1.1, as the reference reads them.
fn class_yaml() -> LoadOptions {
    LoadOptions {
        version: YamlVersion::V1_1,
        ..LoadOptions::default()
    }
}

type Loaded = Result<(vetro_diag::FileId, Vec<vetro_yaml::Node>), Vec<Diagnostic>>;

/// The classes of a loaded class file.
fn read_class_docs(
    loaded: Loaded,
    rel: &str,
    default_name: Option<&str>,
    test_methods_public: bool,
) -> (Vec<ClassDef>, FileReport, Vec<Diagnostic>) {
    let mut report = FileReport {
        file: rel.to_string(),
        ..Default::default()
    };
    let mut problems = Vec::new();
    let (_, docs) = match loaded {
        Ok(r) => r,
        Err(d) => return (Vec::new(), report, d),
    };
    let mut classes = Vec::new();
    let mut namespaces = Arc::new(Namespaces::default());
    let mut reader = DataReader::new();
    for (i, node) in docs.iter().enumerate() {
        if node.is_null() {
            continue;
        }
        report.documents += 1;
        let mut path: DocPath = vec![PathSeg::Index(i)];
        let doc = match reader.read(node, &mut path) {
            Ok(d) => d,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        if let Some(ns) = read_namespaces(&doc) {
            namespaces = Arc::new(ns);
        }
        if !defines_class(&doc) {
            continue;
        }
        let ctx = DocContext {
            namespaces: namespaces.clone(),
            default_name,
            file_name: rel,
            test_methods_public,
        };
        match read_class(&doc, &ctx) {
            Ok(rc) => {
                for p in &rc.method_problems {
                    problems.push(
                        Diagnostic::error(DslKind::MethodSyntax, p.error.message.clone())
                            .with_span(p.error.span)
                            .with_path(format!("Methods/{}", p.method)),
                    );
                }
                report.methods.extend(rc.methods_ok);
                report.class_names.push(rc.class.name.clone());
                if rc.method_problems.is_empty() {
                    classes.push(rc.class);
                }
            }
            Err(p) => {
                problems.push(Diagnostic::error(DslKind::ClassSyntax, p.message).with_span(p.span))
            }
        }
    }
    report.expressions = reader.found;
    (classes, report, problems)
}

/// The YAML files under `dir` and its subfolders, in name order. A folder
/// reached again through a symbolic link is walked once (links may form
/// cycles, and two links to their parent double the walk at each level);
/// folders for which `skip` holds are not walked.
fn yaml_files_under(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut walked = HashSet::new();
    walk_yaml_files(dir, skip, &mut walked, &mut out);
    out
}

fn walk_yaml_files(
    dir: &Path,
    skip: &dyn Fn(&Path) -> bool,
    walked: &mut HashSet<PathBuf>,
    out: &mut Vec<PathBuf>,
) {
    let Ok(real) = std::fs::canonicalize(dir) else {
        return;
    };
    if !walked.insert(real) {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if !skip(&p) {
                walk_yaml_files(&p, skip, walked, out);
            }
        } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(p);
        }
    }
}

fn rel_path(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A manifest class path stays inside `Classes/`: relative, no `..`.
fn is_inside(file: &str) -> bool {
    let path = Path::new(file);
    !file.is_empty()
        && path.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        })
}

/// What a class file the manifest maps classes to must hold: a class, and
/// the classes the manifest names.
fn mapped_file_problems(
    manifest: &Manifest,
    under: &str,
    report: &FileReport,
    name_at: Option<vetro_diag::Span>,
) -> Vec<Diagnostic> {
    let mapped: Vec<&String> = manifest
        .classes
        .iter()
        .filter(|(_, file)| file.as_str() == under)
        .map(|(name, _)| name)
        .collect();
    if mapped.is_empty() {
        return Vec::new();
    }
    if report.class_names.is_empty() {
        return vec![Diagnostic::error(
            DslKind::EmptyClassFile,
            format!(
                "{} defines no class (the manifest maps {} to it)",
                report.file, mapped[0]
            ),
        )];
    }
    mapped
        .into_iter()
        .filter(|name| !report.class_names.contains(name))
        .map(|name| {
            let d = Diagnostic::error(
                DslKind::ClassName,
                format!(
                    "the manifest maps {name} to {}, which defines {}",
                    report.file,
                    report.class_names.join(", ")
                ),
            );
            match name_at {
                Some(span) => d.with_span(span),
                None => d,
            }
        })
        .collect()
}

impl Package {
    fn add_classes(&mut self, classes: Vec<ClassDef>) {
        for c in classes {
            self.classes.insert(c.name.clone(), Arc::new(c));
        }
    }

    /// A package directory with `manifest.yaml` and `Classes/`.
    pub fn load_dir(root: &Path, sources: &mut SourceMap) -> Package {
        let mut pkg = Package {
            root: root.to_path_buf(),
            version: "0.0.0".into(),
            format: "1.0".into(),
            ..Default::default()
        };
        let manifest = match Manifest::load(&root.join("manifest.yaml"), sources) {
            Ok(m) => m,
            Err(d) => {
                pkg.problems.extend(d);
                return pkg;
            }
        };
        let classes_dir = root.join("Classes");
        // A folder the manifest names as a class file is reported, not
        // walked: what it holds was not meant as the package's classes.
        let named = |p: &Path| {
            manifest
                .classes
                .iter()
                .any(|(_, file)| classes_dir.join(file) == p)
        };
        let files = yaml_files_under(&classes_dir, &named);
        let class_files = files.into_iter().map(|f| {
            let under = rel_path(&classes_dir, &f);
            let loaded = vetro_yaml::load_file(&f, sources, &class_yaml());
            (under, loaded)
        });
        let class_files: Vec<_> = class_files.collect();
        pkg.add_manifest_classes(&manifest, class_files, |file| {
            let path = classes_dir.join(file);
            if path.is_file() {
                None
            } else if path.is_dir() {
                Some("is a folder, not a class file")
            } else {
                Some("does not exist")
            }
        });
        pkg
    }

    /// A package held in memory (`label` names it in diagnostics, e.g. the
    /// archive it came from). Its resources are read from `files` too.
    pub fn load_files(label: &str, files: PackageFiles, sources: &mut SourceMap) -> Package {
        let mut pkg = Package {
            root: PathBuf::from(label),
            version: "0.0.0".into(),
            format: "1.0".into(),
            ..Default::default()
        };
        let name = |rel: &str| format!("{label}/{rel}");
        let manifest = match files.get("manifest.yaml") {
            Some(bytes) => Manifest::parse(&name("manifest.yaml"), bytes, sources),
            None => Err(vec![Diagnostic::error(
                DslKind::Manifest,
                format!("{label}: the package has no manifest.yaml"),
            )]),
        };
        let manifest = match manifest {
            Ok(m) => m,
            Err(d) => {
                pkg.problems.extend(d);
                return pkg;
            }
        };
        let class_files: Vec<_> = files
            .iter()
            .filter_map(|(rel, bytes)| {
                let under = rel.strip_prefix("Classes/")?;
                let yaml = under.ends_with(".yaml") || under.ends_with(".yml");
                yaml.then(|| {
                    let loaded = load_yaml_bytes(&name(rel), bytes, sources, &class_yaml());
                    (under.to_string(), loaded)
                })
            })
            .collect();
        pkg.add_manifest_classes(&manifest, class_files, |file| {
            (!files.contains_key(&format!("Classes/{file}"))).then_some("does not exist")
        });
        pkg.contents = Some(std::sync::Arc::new(files));
        pkg
    }

    /// A package zip archive (as Murano's catalog stores them: the manifest
    /// at the top), read within `limits`.
    pub fn load_zip(
        label: &str,
        bytes: &[u8],
        limits: &ArchiveLimits,
        sources: &mut SourceMap,
    ) -> Package {
        match archive::read_zip(bytes, limits) {
            Ok(files) => Package::load_files(label, files, sources),
            Err(e) => Package {
                root: PathBuf::from(label),
                problems: vec![Diagnostic::error(DslKind::Archive, format!("{label}: {e}"))],
                ..Default::default()
            },
        }
    }

    /// Take the manifest's identity and the classes of the class files
    /// (path under `Classes/`, loaded YAML); `unusable` tells why a path
    /// under `Classes/` is not a file of the package (`None`: it is one).
    fn add_manifest_classes(
        &mut self,
        manifest: &Manifest,
        class_files: Vec<(String, Loaded)>,
        unusable: impl Fn(&str) -> Option<&'static str>,
    ) {
        self.name = manifest.full_name.clone();
        self.version = manifest.version.clone();
        self.format = manifest.format.clone();
        self.requires = manifest.require.clone();
        for (under, loaded) in class_files {
            let rel = format!("Classes/{under}");
            let default_name = manifest
                .classes
                .iter()
                .find(|(_, file)| file.as_str() == under)
                .map(|(n, _)| n.clone());
            // Where the file names its class, for a name the manifest does not expect.
            let name_at = loaded.as_ref().ok().and_then(|(_, docs)| {
                docs.iter()
                    .find_map(|d| d.as_map()?.entry("Name").map(|(k, _)| k.span))
            });
            let (classes, report, problems) =
                read_class_docs(loaded, &rel, default_name.as_deref(), false);
            if problems.is_empty() {
                self.problems
                    .extend(mapped_file_problems(manifest, &under, &report, name_at));
            }
            self.add_classes(classes);
            self.files.push(report);
            self.problems.extend(problems);
        }
        for (cls, file) in &manifest.classes {
            if !is_inside(file) {
                self.problems.push(Diagnostic::error(
                    DslKind::ClassPath,
                    format!("class {cls} maps to {file}, which is outside the package's Classes/ folder"),
                ));
            } else if let Some(why) = unusable(file) {
                self.problems.push(Diagnostic::error(
                    DslKind::MissingClassFile,
                    format!("class {cls} maps to Classes/{file}, which {why}"),
                ));
            }
        }
    }

    /// The conformance `tests` package: every `*.yaml` file of a folder (or the
    /// listed ones), version 0.0.0, format 1.0, `test*` methods public.
    pub fn load_test_classes(
        dir: &Path,
        only: Option<&[String]>,
        sources: &mut SourceMap,
    ) -> Package {
        let mut pkg = Package {
            name: "tests".into(),
            version: "0.0.0".into(),
            format: "1.0".into(),
            root: dir.to_path_buf(),
            ..Default::default()
        };
        let files = match only {
            Some(names) => names.iter().map(|n| dir.join(n)).collect(),
            None => yaml_files_under(dir, &|_| false),
        };
        for f in files {
            let rel = rel_path(dir, &f);
            let (classes, report, problems) = load_class_file(&f, &rel, sources, None, true);
            pkg.add_classes(classes);
            pkg.files.push(report);
            pkg.problems.extend(problems);
        }
        pkg
    }
}
