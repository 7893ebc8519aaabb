//! A plan's files on disk, laid out as murano-agent lays them: each file is
//! written once under `STORAGE/files/PLAN_ID/FILE_ID` (downloads into a
//! folder of that name) and linked as `STORAGE/files/PLAN_ID/SCRIPT/NAME`
//! for every script that uses it.

use crate::body::Raised;
use base64::Engine as _;
use serde_json::{Map, Value as Json};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

pub struct Files {
    cache: PathBuf,
    defs: Map<String, Json>,
    fetched: HashMap<String, PathBuf>,
    /// Downloads are only prepared (an empty folder), not fetched.
    dry_run: bool,
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> Raised {
    Raised::new(format!("IOError: {what} {}: {e}", path.display()))
}

/// A relative path that stays inside the folder it is joined to.
fn safe_relative(name: &str) -> Result<&Path, Raised> {
    let p = Path::new(name);
    if name.is_empty() || p.components().any(|c| !matches!(c, Component::Normal(_))) {
        return Err(Raised::new(format!(
            "ValueError: file name {name:?} must be a relative path without '..'"
        )));
    }
    Ok(p)
}

impl Files {
    /// The file area of plan `plan_id` (emptied first, as a new run starts clean).
    pub fn new(storage: &Path, plan_id: &str, plan: &Json, dry_run: bool) -> Result<Files, Raised> {
        let cache = storage.join("files").join(safe_relative(plan_id)?);
        if cache.exists() {
            let _ = std::fs::remove_dir_all(&cache);
        }
        std::fs::create_dir_all(&cache).map_err(|e| io_err("cannot create", &cache, e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o700));
        }
        Ok(Files {
            cache,
            defs: plan
                .get("Files")
                .and_then(Json::as_object)
                .cloned()
                .unwrap_or_default(),
            fetched: HashMap::new(),
            dry_run,
        })
    }

    /// The folder of script `script`.
    pub fn script_dir(&self, script: &str) -> PathBuf {
        self.cache.join(script)
    }

    /// Remove the plan's files.
    pub fn clear(&self) {
        let _ = std::fs::remove_dir_all(&self.cache);
    }

    /// Place file `file_ref` (an id, or a `{name: definition}` mapping) in
    /// the folder of `script`; its path there.
    pub fn put_file(&mut self, file_ref: &Json, script: &str) -> Result<PathBuf, Raised> {
        let (id, def) = match file_ref {
            Json::Object(m) if m.len() == 1 => {
                let (k, v) = m.iter().next().unwrap_or_else(|| unreachable!());
                let def = match v {
                    Json::Object(_) => v.clone(),
                    _ => self.defs.get(k).cloned().unwrap_or(Json::Null),
                };
                (k.clone(), def)
            }
            other => {
                let id = crate::body::py_str(other);
                let def =
                    self.defs.get(&id).cloned().ok_or_else(|| {
                        Raised::new(format!("KeyError: no file {id:?} in the plan"))
                    })?;
                (id, def)
            }
        };
        let name = def
            .get("Name")
            .and_then(Json::as_str)
            .unwrap_or(&id)
            .to_string();
        let source = if def.get("Type").and_then(Json::as_str) == Some("Downloadable") {
            self.download(&id, &def)?
        } else {
            self.fetch(&id, &def)?
        };
        self.link(&source, &name, script)
    }

    fn link(&self, source: &Path, name: &str, script: &str) -> Result<PathBuf, Raised> {
        let dest = self
            .script_dir(safe_relative(script)?.to_str().unwrap_or(script))
            .join(safe_relative(name)?);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_err("cannot create", parent, e))?;
        }
        if std::fs::symlink_metadata(&dest).is_err() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(source, &dest)
                .map_err(|e| io_err("cannot link", &dest, e))?;
            #[cfg(not(unix))]
            std::fs::copy(source, &dest).map_err(|e| io_err("cannot copy to", &dest, e))?;
        }
        Ok(dest)
    }

    fn fetch(&mut self, id: &str, def: &Json) -> Result<PathBuf, Raised> {
        if let Some(p) = self.fetched.get(id) {
            return Ok(p.clone());
        }
        let out = self.cache.join(safe_relative(id)?);
        let body = def.get("Body").and_then(Json::as_str).unwrap_or_default();
        let bytes = match def.get("BodyType").and_then(Json::as_str).unwrap_or("Text") {
            "Base64" => {
                let clean: String = body.chars().filter(|c| !c.is_whitespace()).collect();
                base64::engine::general_purpose::STANDARD
                    .decode(clean)
                    .map_err(|e| Raised::new(format!("binascii.Error: file {id}: {e}")))?
            }
            _ => body.as_bytes().to_vec(),
        };
        std::fs::write(&out, bytes).map_err(|e| io_err("cannot write", &out, e))?;
        self.fetched.insert(id.to_string(), out.clone());
        Ok(out)
    }

    /// A `Downloadable` file: a git or Subversion checkout, or an HTTP(S)
    /// download, into a folder named after the file id.
    fn download(&mut self, id: &str, def: &Json) -> Result<PathBuf, Raised> {
        let folder = self.cache.join(safe_relative(id)?);
        if folder.is_dir() {
            return Ok(folder);
        }
        let url = def
            .get("URL")
            .and_then(Json::as_str)
            .ok_or_else(|| Raised::new(format!("ValueError: No valid URL in file {id}")))?;
        if !url.contains("://") {
            return Err(Raised::new(format!(
                "ValueError: Provided URL is not valid {url}"
            )));
        }
        std::fs::create_dir_all(&folder).map_err(|e| io_err("cannot create", &folder, e))?;
        if self.dry_run {
            return Ok(folder);
        }
        let is_git = url.starts_with("git://")
            || url.starts_with("git+http://")
            || url.starts_with("git+https://")
            || url.ends_with(".git");
        let is_svn = url.starts_with("svn://") || url.contains("/svn/");
        let target = folder.to_string_lossy().to_string();
        let (tool, args): (&str, Vec<String>) = if is_git {
            let clean = url.strip_prefix("git+").unwrap_or(url);
            (
                "git",
                vec!["clone".into(), "--quiet".into(), clean.into(), target],
            )
        } else if is_svn {
            (
                "svn",
                vec![
                    "checkout".into(),
                    url.into(),
                    "--non-interactive".into(),
                    "--trust-server-cert".into(),
                    target,
                ],
            )
        } else {
            let file = url.rsplit('/').next().unwrap_or("download");
            let dest = folder
                .join(safe_relative(file)?)
                .to_string_lossy()
                .to_string();
            ("curl", vec!["-fsSL".into(), "-o".into(), dest, url.into()])
        };
        let out = Command::new(tool).args(&args).output().map_err(|e| {
            Raised::new(format!(
                "ValueError: cannot download {url}: `{tool}` could not be run ({e})"
            ))
        })?;
        if !out.status.success() {
            return Err(Raised::new(format!(
                "ValueError: Error to download the file {url}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(folder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_are_written_once_and_linked_per_script() {
        let dir = tempfile::tempdir().unwrap();
        let plan = json!({"Files": {
            "f1": {"Name": "bin/run.sh", "BodyType": "Text", "Body": "echo hi"},
            "f2": {"Name": "data", "BodyType": "Base64", "Body": "AAEC\n/w=="}}});
        let mut f = Files::new(dir.path(), "plan1", &plan, false).unwrap();
        let p = f.put_file(&json!("f1"), "deploy").unwrap();
        assert!(p.ends_with("files/plan1/deploy/bin/run.sh"));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "echo hi");
        let d = f.put_file(&json!("f2"), "other").unwrap();
        assert_eq!(std::fs::read(d).unwrap(), vec![0, 1, 2, 255]);
        assert!(f.put_file(&json!("nope"), "deploy").is_err());
        let bad = json!({"Files": {"x": {"Name": "../escape", "BodyType": "Text", "Body": ""}}});
        let mut f = Files::new(dir.path(), "plan2", &bad, false).unwrap();
        assert!(f
            .put_file(&json!("x"), "s")
            .unwrap_err()
            .message
            .contains(".."));
    }
}
