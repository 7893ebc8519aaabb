//! Inspecting an uploaded package archive: safe unpacking (size, file count
//! and path limits), the manifest's catalog fields, and the same static
//! checks `vetro check` runs, with their file:line:column diagnostics.

use crate::error::ApiError;
use crate::state::Limits;
use serde_json::{json, Value};
use std::io::{Cursor, Read};
use std::path::{Component, Path, PathBuf};
use vetro_diag::{Severity, SourceMap};
use vetro_dsl::check;
use vetro_dsl::package::Package;

/// What an archive holds, for the catalog.
#[derive(Debug)]
pub struct Inspected {
    pub manifest: Value,
    pub full_name: String,
    pub name: String,
    pub kind: String,
    pub version: String,
    pub classes: Vec<String>,
    pub logo: Option<Vec<u8>>,
    pub supplier_logo: Option<Vec<u8>>,
    pub ui_definition: Option<String>,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::bad_request(message).with_kind("PackageLoadError")
}

/// A relative path inside the archive, or an error when it would escape it.
fn safe_relative(name: &str) -> Result<PathBuf, ApiError> {
    let p = Path::new(name);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            _ => {
                return Err(invalid(format!(
                    "the archive entry '{name}' points outside the package"
                )))
            }
        }
    }
    if name.contains('\\') {
        return Err(invalid(format!(
            "the archive entry '{name}' uses backslashes"
        )));
    }
    Ok(out)
}

/// Unpacks `bytes` into `dir`, enforcing the limits on the bytes actually
/// written (declared sizes may lie).
pub fn unpack(bytes: &[u8], dir: &Path, limits: &Limits) -> Result<(), ApiError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| invalid(format!("the upload is not a valid zip archive: {e}")))?;
    if zip.len() > limits.package_files {
        return Err(invalid(format!(
            "the archive has {} entries; at most {} are allowed",
            zip.len(),
            limits.package_files
        )));
    }
    let mut budget = limits.package_unpacked;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| invalid(format!("the zip archive is damaged: {e}")))?;
        let rel = safe_relative(entry.name())?;
        if entry.is_symlink() {
            return Err(invalid(format!(
                "the archive entry '{}' is a symbolic link",
                entry.name()
            )));
        }
        let target = dir.join(&rel);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(io_error)?;
            continue;
        }
        if entry.size() > budget {
            return Err(too_big(limits));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io_error)?;
        }
        let mut data = Vec::new();
        (&mut entry)
            .take(budget + 1)
            .read_to_end(&mut data)
            .map_err(|e| {
                invalid(format!(
                    "the zip entry '{}' cannot be read: {e}",
                    rel.display()
                ))
            })?;
        if data.len() as u64 > budget {
            return Err(too_big(limits));
        }
        budget -= data.len() as u64;
        std::fs::write(&target, data).map_err(io_error)?;
    }
    Ok(())
}

fn too_big(limits: &Limits) -> ApiError {
    ApiError::too_large(format!(
        "the archive unpacks to more than {} bytes",
        limits.package_unpacked
    ))
    .with_kind("PackageSizeError")
}

fn io_error(e: std::io::Error) -> ApiError {
    tracing::error!(error = %e, "cannot unpack a package");
    ApiError::unavailable("the package could not be unpacked on the server")
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// Reads the manifest as JSON.
fn manifest(dir: &Path) -> Result<Value, ApiError> {
    let path = dir.join("manifest.yaml");
    if !path.is_file() {
        return Err(invalid("the archive has no manifest.yaml at its root"));
    }
    let mut sources = SourceMap::new();
    let (_, docs) = vetro_yaml::load_file(&path, &mut sources, &vetro_yaml::LoadOptions::default())
        .map_err(|ds| diagnostics_error(&sources, &ds, dir))?;
    let m = docs.first().map(vetro_yaml::to_json).unwrap_or(Value::Null);
    if !m.is_object() {
        return Err(invalid("manifest.yaml is not a mapping"));
    }
    Ok(m)
}

/// A 400 answer carrying diagnostics as `vetro check` reports them.
fn diagnostics_error(sources: &SourceMap, ds: &[vetro_diag::Diagnostic], dir: &Path) -> ApiError {
    let prefix = format!("{}/", dir.display());
    let items: Vec<Value> = ds
        .iter()
        .map(|d| {
            let mut v = check::problem_json(sources, d);
            if let Some(f) = v.get("file").and_then(Value::as_str) {
                v["file"] = json!(f.strip_prefix(&prefix).unwrap_or(f));
            }
            let at = match (v.get("file"), v.get("line"), v.get("column")) {
                (Some(f), Some(l), Some(c)) => format!("{}:{l}:{c}: ", f.as_str().unwrap_or("")),
                _ => String::new(),
            };
            v["text"] = json!(format!("{at}{}: {}", d.severity, d.message));
            v
        })
        .collect();
    let first = items
        .iter()
        .find(|v| v["severity"] == "error")
        .or(items.first())
        .and_then(|v| v["text"].as_str())
        .unwrap_or("the package does not load")
        .to_string();
    invalid(format!("the package does not load: {first}"))
        .with_details(json!({"diagnostics": items}))
}

fn read_optional(dir: &Path, rel: &str) -> Result<Option<Vec<u8>>, ApiError> {
    let rel = safe_relative(rel)?;
    let p = dir.join(rel);
    if p.is_file() {
        Ok(Some(std::fs::read(p).map_err(io_error)?))
    } else {
        Ok(None)
    }
}

/// Unpacks and checks an archive.
pub fn inspect(bytes: &[u8], limits: &Limits) -> Result<Inspected, ApiError> {
    let tmp = tempfile::tempdir().map_err(io_error)?;
    let dir = tmp.path();
    unpack(bytes, dir, limits)?;
    let m = manifest(dir)?;
    let full_name = text(&m, "FullName").ok_or_else(|| invalid("the manifest has no FullName"))?;
    let kind = text(&m, "Type").unwrap_or_else(|| "Application".into());
    let kind = match kind.to_ascii_lowercase().as_str() {
        "application" => "Application".to_string(),
        "library" => "Library".to_string(),
        _ => {
            return Err(invalid(format!(
                "the manifest's Type must be Application or Library, not '{kind}'"
            )))
        }
    };
    let mut sources = SourceMap::new();
    let pkg = Package::load_dir(dir, &mut sources);
    let mut problems = pkg.problems.clone();
    let loaded = std::slice::from_ref(&pkg);
    problems.extend(check::resolution_problems(loaded));
    problems.extend(check::analysis_problems(loaded));
    if problems.iter().any(|d| d.severity == Severity::Error) {
        let errors: Vec<_> = problems
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        return Err(diagnostics_error(&sources, &errors, dir));
    }
    let ui_file = text(&m, "UI").unwrap_or_else(|| "ui.yaml".into());
    let ui_definition = read_optional(dir, &format!("UI/{ui_file}"))?
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let logo = read_optional(dir, &text(&m, "Logo").unwrap_or_else(|| "logo.png".into()))?;
    let supplier_logo = match m.pointer("/Supplier/Logo").and_then(Value::as_str) {
        Some(l) => read_optional(dir, l)?,
        None => None,
    };
    Ok(Inspected {
        name: text(&m, "Name").unwrap_or_else(|| full_name.clone()),
        version: pkg.version.clone(),
        classes: pkg.classes.keys().cloned().collect(),
        full_name,
        kind,
        manifest: m,
        logo,
        supplier_logo,
        ui_definition,
    })
}
