//! The Heat environment of `--heat-environment`, read as python-heatclient
//! reads one: YAML or JSON, and every provider template its
//! `resource_registry` names by path (relative to the environment file) is
//! read and sent along in the request's `files`, under its `file://` URL.

use serde_json::{Map, Value as Json};
use std::path::Path;

/// An environment and the files it needs, sent with every push.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HeatEnvironment {
    pub environment: Json,
    pub files: Map<String, Json>,
}

impl HeatEnvironment {
    /// No environment: nothing merged, no files.
    pub fn empty() -> HeatEnvironment {
        HeatEnvironment {
            environment: Json::Object(Map::new()),
            files: Map::new(),
        }
    }
}

/// Read `path`.
pub fn load(path: &Path) -> Result<HeatEnvironment, String> {
    let mut env = load_yaml(path)?;
    if !env.is_object() {
        return Err(format!(
            "{}: a Heat environment is a mapping (resource_registry, parameter_defaults, ...)",
            path.display()
        ));
    }
    let base = path
        .canonicalize()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let base = base.parent().unwrap_or(Path::new("/"));
    let mut files = Map::new();
    if let Some(registry) = env.get_mut("resource_registry") {
        resolve(registry, base, &mut files, path)?;
    }
    Ok(HeatEnvironment {
        environment: env,
        files,
    })
}

fn load_yaml(path: &Path) -> Result<Json, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut sources = vetro_diag::SourceMap::new();
    let file = sources.add(path.display().to_string(), text.as_str());
    let docs =
        vetro_yaml::load_str(&sources, file, &vetro_yaml::LoadOptions::default()).map_err(|d| {
            d.first()
                .map(|x| {
                    let (line, col) = x.span.as_ref().map(|s| (s.line, s.col)).unwrap_or((1, 1));
                    format!("{}:{line}:{col}: {}", path.display(), x.message)
                })
                .unwrap_or_default()
        })?;
    Ok(docs.first().map(vetro_yaml::to_json).unwrap_or(Json::Null))
}

/// A registry value that names a template file rather than a resource type
/// (`OS::Nova::Server`) or a URL Heat fetches itself.
fn is_local_template(value: &str) -> bool {
    !value.contains("::") && !value.contains("://")
}

/// Replace the registry's template paths by `file://` URLs and collect the
/// templates (per-resource sections under `resources` too).
fn resolve(
    registry: &mut Json,
    base: &Path,
    files: &mut Map<String, Json>,
    env_path: &Path,
) -> Result<(), String> {
    let Some(map) = registry.as_object_mut() else {
        return Ok(());
    };
    for (key, value) in map.iter_mut() {
        if matches!(key.as_str(), "hooks" | "restricted_actions" | "base_url") {
            continue;
        }
        match value {
            Json::Object(_) => resolve(value, base, files, env_path)?,
            Json::String(s) if is_local_template(s) => {
                let file = base.join(s.as_str());
                let text = std::fs::read_to_string(&file).map_err(|e| {
                    format!(
                        "{}: resource_registry {key}: {}: {e}",
                        env_path.display(),
                        file.display()
                    )
                })?;
                let url = format!("file://{}", file.display());
                files.insert(url.clone(), Json::String(text));
                *s = url;
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn provider_templates_travel_in_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("port.yaml"),
            "heat_template_version: 2013-05-23\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("env.yaml"),
            "resource_registry:\n  OS::Nova::Server: OS::Heat::None\n  OS::Neutron::Port: port.yaml\n  resources:\n    vm:\n      hooks: pre-create\n",
        )
        .unwrap();
        let env = load(&dir.path().join("env.yaml")).unwrap();
        let url = format!(
            "file://{}",
            dir.path()
                .canonicalize()
                .unwrap()
                .join("port.yaml")
                .display()
        );
        assert_eq!(
            env.environment["resource_registry"],
            json!({"OS::Nova::Server": "OS::Heat::None", "OS::Neutron::Port": url,
                   "resources": {"vm": {"hooks": "pre-create"}}})
        );
        assert_eq!(
            env.files[&url],
            json!("heat_template_version: 2013-05-23\n")
        );
        std::fs::write(
            dir.path().join("bad.yaml"),
            "resource_registry:\n  X::Y: gone.yaml\n",
        )
        .unwrap();
        let e = load(&dir.path().join("bad.yaml")).unwrap_err();
        assert!(
            e.contains("resource_registry X::Y") && e.contains("gone.yaml"),
            "{e}"
        );
        std::fs::write(dir.path().join("list.yaml"), "- a\n").unwrap();
        assert!(load(&dir.path().join("list.yaml"))
            .unwrap_err()
            .contains("is a mapping"));
    }
}
