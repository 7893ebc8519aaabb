//! Credentials the way OpenStack users give them: a cloud of `clouds.yaml`
//! (`--os-cloud` / `OS_CLOUD`), found where openstacksdk looks for it, with
//! its `secure.yaml` merged in; or the `OS_*` environment variables.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use std::path::{Path, PathBuf};

/// How to authenticate to Keystone v3. Its `Debug` form leaves the secrets out.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub enum Method {
    Password {
        user: Named,
        password: String,
    },
    Token(String),
    ApplicationCredential {
        id: Option<String>,
        name: Option<String>,
        user: Option<Named>,
        secret: String,
    },
}

impl std::fmt::Debug for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Method::Password { user, .. } => f
                .debug_struct("Password")
                .field("user", user)
                .finish_non_exhaustive(),
            Method::Token(_) => f.write_str("Token(..)"),
            Method::ApplicationCredential { id, name, user, .. } => f
                .debug_struct("ApplicationCredential")
                .field("id", id)
                .field("name", name)
                .field("user", user)
                .finish_non_exhaustive(),
        }
    }
}

/// Something Keystone knows by id, or by name within a domain.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Named {
    pub id: Option<String>,
    pub name: Option<String>,
    pub domain_id: Option<String>,
    pub domain_name: Option<String>,
}

/// Everything needed to reach a cloud.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Credentials {
    /// Where the credentials came from (`clouds.yaml cloud NAME`, `OS_* variables`).
    pub source: String,
    pub auth_url: String,
    pub method: Method,
    /// The project to scope to (none for application credentials).
    pub project: Option<Named>,
    /// A Keystone trust to scope to instead of a project: these credentials
    /// are the trustee's, acting for the trustor ([`crate::keystone::trust_credentials`]).
    pub trust_id: Option<String>,
    pub region: Option<String>,
    /// Endpoint interface: `public` (default), `internal` or `admin`.
    pub interface: String,
    /// Endpoints given instead of the catalog's, by service type
    /// (`orchestration_endpoint_override`, `OS_NETWORK_ENDPOINT_OVERRIDE`).
    pub endpoint_overrides: std::collections::BTreeMap<String, String>,
}

/// The service types whose endpoint `OS_<TYPE>_ENDPOINT_OVERRIDE` may give.
const OVERRIDABLE: &[&str] = &["identity", "orchestration", "network"];

/// Where openstacksdk looks for `clouds.yaml`, in order.
pub fn search_paths(env: &dyn Fn(&str) -> Option<String>, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(f) = env("OS_CLIENT_CONFIG_FILE") {
        out.push(PathBuf::from(f));
    }
    out.push(cwd.join("clouds.yaml"));
    let config_home = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config")));
    if let Some(c) = config_home {
        out.push(c.join("openstack").join("clouds.yaml"));
    }
    out.push(PathBuf::from("/etc/openstack/clouds.yaml"));
    out
}

fn load_yaml(path: &Path) -> Result<Json, String> {
    let mut sources = vetro_diag::SourceMap::new();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = sources.add(path.display().to_string(), text.as_str());
    let docs =
        vetro_yaml::load_str(&sources, file, &vetro_yaml::LoadOptions::default()).map_err(|d| {
            let first = d.first().map(|x| x.message.clone()).unwrap_or_default();
            format!("{}: {first}", path.display())
        })?;
    Ok(docs.first().map(vetro_yaml::to_json).unwrap_or(Json::Null))
}

fn merge(base: &mut Json, over: &Json) {
    match (base, over) {
        (Json::Object(b), Json::Object(o)) => {
            for (k, v) in o {
                merge(b.entry(k.clone()).or_insert(Json::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The credentials of cloud `name` of the first `clouds.yaml` found.
pub fn from_clouds_yaml(
    name: &str,
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &Path,
) -> Result<Credentials, String> {
    let paths = search_paths(env, cwd);
    let path = paths.iter().find(|p| p.is_file()).ok_or_else(|| {
        let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        format!(
            "cloud {name:?}: no clouds.yaml found (looked in {})",
            list.join(", ")
        )
    })?;
    let doc = load_yaml(path)?;
    let mut cloud = doc
        .get("clouds")
        .and_then(|c| c.get(name))
        .cloned()
        .ok_or_else(|| format!("{}: no cloud named {name:?} under `clouds`", path.display()))?;
    if let Some(dir) = path.parent() {
        let secure = dir.join("secure.yaml");
        if secure.is_file() {
            if let Some(s) = load_yaml(&secure)?.get("clouds").and_then(|c| c.get(name)) {
                merge(&mut cloud, s);
            }
        }
    }
    let source = format!("cloud {name:?} of {}", path.display());
    from_cloud_entry(&cloud, source)
}

fn s(m: &Map<String, Json>, k: &str) -> Option<String> {
    match m.get(k) {
        Some(Json::String(v)) if !v.is_empty() => Some(v.clone()),
        Some(Json::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Credentials from one `clouds:` entry.
pub fn from_cloud_entry(cloud: &Json, source: String) -> Result<Credentials, String> {
    let empty = Map::new();
    let top = cloud.as_object().unwrap_or(&empty);
    let auth = top.get("auth").and_then(Json::as_object).unwrap_or(&empty);
    let get = |k: &str| s(auth, k);
    let mut creds = build(
        &get,
        s(top, "auth_type"),
        s(top, "region_name"),
        s(top, "interface"),
        source,
    )?;
    for (key, _) in top.iter() {
        if let (Some(kind), Some(url)) = (key.strip_suffix("_endpoint_override"), s(top, key)) {
            creds.endpoint_overrides.insert(kind.replace('_', "-"), url);
        }
    }
    Ok(creds)
}

/// Credentials from the `OS_*` environment variables.
pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Credentials, String> {
    let get = |k: &str| {
        let var = match k {
            "project_name" => env("OS_PROJECT_NAME").or_else(|| env("OS_TENANT_NAME")),
            "project_id" => env("OS_PROJECT_ID").or_else(|| env("OS_TENANT_ID")),
            other => env(&format!("OS_{}", other.to_ascii_uppercase())),
        };
        var.filter(|v| !v.is_empty())
    };
    let interface = env("OS_INTERFACE").or_else(|| env("OS_ENDPOINT_TYPE"));
    let mut creds = build(
        &get,
        env("OS_AUTH_TYPE"),
        env("OS_REGION_NAME"),
        interface,
        "OS_* variables".into(),
    )?;
    for kind in OVERRIDABLE {
        let var = format!("OS_{}_ENDPOINT_OVERRIDE", kind.to_ascii_uppercase());
        if let Some(url) = env(&var).filter(|u| !u.is_empty()) {
            creds.endpoint_overrides.insert(kind.to_string(), url);
        }
    }
    Ok(creds)
}

fn build(
    get: &dyn Fn(&str) -> Option<String>,
    auth_type: Option<String>,
    region: Option<String>,
    interface: Option<String>,
    source: String,
) -> Result<Credentials, String> {
    let auth_url = get("auth_url").ok_or_else(|| format!("{source}: no auth_url"))?;
    let domain = |kind: &str| Named {
        id: None,
        name: None,
        domain_id: get(&format!("{kind}_domain_id")).or_else(|| get("domain_id")),
        domain_name: get(&format!("{kind}_domain_name")).or_else(|| get("domain_name")),
    };
    let user = Named {
        id: get("user_id"),
        name: get("username"),
        ..domain("user")
    };
    let kind = auth_type.unwrap_or_else(|| {
        if get("application_credential_secret").is_some() {
            "v3applicationcredential".into()
        } else if get("token").is_some() && get("password").is_none() {
            "token".into()
        } else {
            "password".into()
        }
    });
    let method = match kind.as_str() {
        "password" | "v3password" => Method::Password {
            password: get("password").ok_or_else(|| format!("{source}: no password"))?,
            user,
        },
        "token" | "v3token" => Method::Token(get("token").ok_or_else(|| format!("{source}: no token"))?),
        "v3applicationcredential" | "applicationcredential" => Method::ApplicationCredential {
            id: get("application_credential_id"),
            name: get("application_credential_name"),
            user: (user.id.is_some() || user.name.is_some()).then_some(user),
            secret: get("application_credential_secret").ok_or_else(|| format!("{source}: no application_credential_secret"))?,
        },
        other => return Err(format!("{source}: auth_type {other:?} is not supported (password, token, v3applicationcredential)")),
    };
    let project = Named {
        id: get("project_id"),
        name: get("project_name"),
        ..domain("project")
    };
    let scoped = project.id.is_some() || project.name.is_some();
    Ok(Credentials {
        source,
        auth_url,
        project: (scoped && !matches!(method, Method::ApplicationCredential { .. }))
            .then_some(project),
        trust_id: None,
        method,
        region,
        interface: interface
            .unwrap_or_else(|| "public".into())
            .trim_end_matches("URL")
            .to_string(),
        endpoint_overrides: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clouds_yaml_is_found_and_secure_yaml_merged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("clouds.yaml"),
            "clouds:\n  lab:\n    auth:\n      auth_url: http://k:5000/v3\n      username: u\n      project_name: p\n      user_domain_name: Default\n      project_domain_id: default\n    region_name: R2\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("secure.yaml"),
            "clouds:\n  lab:\n    auth:\n      password: pw\n",
        )
        .unwrap();
        let c = from_clouds_yaml("lab", &|_| None, dir.path()).unwrap();
        // Secrets stay out of the debug form (logs, panics).
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("pw") && shown.contains("Password"),
            "{shown}"
        );
        assert_eq!(c.region.as_deref(), Some("R2"));
        assert_eq!(c.interface, "public");
        let Method::Password { user, password } = &c.method else {
            panic!("{:?}", c.method)
        };
        assert_eq!(
            (
                user.name.as_deref(),
                password.as_str(),
                user.domain_name.as_deref()
            ),
            (Some("u"), "pw", Some("Default"))
        );
        assert_eq!(c.project.unwrap().domain_id.as_deref(), Some("default"));
        let e = from_clouds_yaml("other", &|_| None, dir.path()).unwrap_err();
        assert!(e.contains("no cloud named \"other\""), "{e}");
        // OS_CLIENT_CONFIG_FILE comes first.
        let paths = search_paths(
            &|k| (k == "OS_CLIENT_CONFIG_FILE").then(|| "/x/c.yaml".into()),
            dir.path(),
        );
        assert_eq!(paths[0], PathBuf::from("/x/c.yaml"));
    }

    #[test]
    fn environment_variables_and_auth_kinds() {
        let vars = |k: &str| match k {
            "OS_AUTH_URL" => Some("http://k/v3".to_string()),
            "OS_TOKEN" => Some("tok".into()),
            "OS_PROJECT_ID" => Some("pid".into()),
            "OS_INTERFACE" => Some("internalURL".into()),
            _ => None,
        };
        let c = from_env(&vars).unwrap();
        assert_eq!(c.method, Method::Token("tok".into()));
        assert_eq!(c.interface, "internal");
        let ac = from_cloud_entry(
            &json!({"auth_type": "v3applicationcredential", "auth": {"auth_url": "u", "application_credential_id": "i", "application_credential_secret": "s", "project_name": "ignored"}}),
            "t".into(),
        )
        .unwrap();
        assert!(matches!(ac.method, Method::ApplicationCredential { .. }) && ac.project.is_none());
        assert!(from_env(&|_| None).unwrap_err().contains("auth_url"));
        let o = from_cloud_entry(
            &json!({"auth": {"auth_url": "u", "token": "t"}, "orchestration_endpoint_override": "http://h/v1/%(project_id)s"}),
            "t".into(),
        )
        .unwrap();
        assert_eq!(
            o.endpoint_overrides["orchestration"],
            "http://h/v1/%(project_id)s"
        );
        let with = |k: &str| match k {
            "OS_NETWORK_ENDPOINT_OVERRIDE" => Some("http://n:9696".to_string()),
            other => vars(other),
        };
        assert_eq!(
            from_env(&with).unwrap().endpoint_overrides["network"],
            "http://n:9696"
        );
    }
}
