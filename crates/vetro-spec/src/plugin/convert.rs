//! InfraRed's option types: how a value (from the command line, an answers
//! file, the environment or the spec default) becomes what the vars tree holds.
//!
//! File types resolve to absolute paths, looked up in this order: the value
//! itself (relative to the current directory), `ARG/NAME/value`, then for
//! `VarFile`-like types the plugin's `vars/ARG/NAME/value` and
//! `defaults/ARG/NAME/value`; each candidate also with `.yml` appended.

use crate::error::{ErrorClass, Result, SpecError};
use crate::tree::{insert_path, py_str, ListMerge};
use regex::Regex;
use serde_json::{Map, Value};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;
use vetro_yaml::{resolve_plain, Resolved, YamlVersion};

/// What a type resolution needs to know.
pub struct TypeCtx<'a> {
    pub plugin_dir: &'a Path,
    pub cwd: &'a Path,
    pub option: &'a str,
    pub lookup_dir: Option<&'a str>,
}

impl TypeCtx<'_> {
    fn err(&self, class: ErrorClass, msg: impl std::fmt::Display) -> SpecError {
        SpecError::new(class, format!("--{}: {msg}", self.option))
    }

    /// `arg-name` -> `arg/name`.
    fn option_dir(&self) -> PathBuf {
        self.option.split('-').collect()
    }
}

/// Whether a shared-group option of this type still goes into the vars tree:
/// InfraRed's complex types do, except the two that steer the run
/// (`AdditionalArgs`, `Inventory`); untyped and builtin-typed options do not.
pub fn nests_when_shared(type_name: Option<&str>) -> bool {
    match type_name {
        None | Some("AdditionalArgs" | "Inventory" | "str" | "int" | "float") => false,
        Some(_) => true,
    }
}

/// Resolve `value` per `type_name` (`None`: kept as is).
pub fn resolve(type_name: Option<&str>, value: &Value, ctx: &TypeCtx) -> Result<Value> {
    let Some(t) = type_name else {
        return Ok(value.clone());
    };
    match t {
        "Bool" => to_bool(value, ctx).map(Value::Bool),
        "Flag" => Ok(Value::Bool(true)),
        "Int" => to_int(value, ctx),
        "ListValue" => Ok(match value {
            Value::Array(_) => value.clone(),
            other => split(&py_str(other), ',')
                .into_iter()
                .map(Value::String)
                .collect(),
        }),
        "KeyValueList" => key_value_list(&py_str(value), ctx),
        "Dict" => nested_dict(value, false, ctx),
        "NestedDict" | "IniType" => nested_dict(value, true, ctx),
        "NestedList" => match value {
            Value::Array(items) => items
                .iter()
                .map(|v| nested_dict(&Value::String(py_str(v)), true, ctx))
                .collect::<Result<Vec<_>>>()
                .map(Value::Array),
            other => Ok(Value::Array(vec![nested_dict(other, true, ctx)?])),
        },
        "FileValue" => find(&py_str(value), Lookup::File, ctx).map(path_value),
        "VarFile" => find(&py_str(value), Lookup::VarFile, ctx).map(path_value),
        "VarDir" => find(&py_str(value), Lookup::VarDir, ctx).map(path_value),
        "ListOfVarFiles" => split(&py_str(value), ',')
            .iter()
            .map(|name| find(name.trim(), Lookup::VarFile, ctx).map(path_value))
            .collect::<Result<Vec<_>>>()
            .map(Value::Array),
        "ListOfTopologyFiles" => topology(&py_str(value), ctx),
        "ListOfFileNames" => file_names(&py_str(value), ctx),
        "AdditionalArgs" => Ok(Value::Array(
            crate::playbook::additional_args(&py_str(value))
                .into_iter()
                .map(Value::String)
                .collect(),
        )),
        _ => Ok(value.clone()),
    }
}

fn split(text: &str, sep: char) -> Vec<String> {
    text.split(sep).map(str::to_string).collect()
}

/// YAML 1.1 booleans (`yes`, `True`, `off`, ...), as `yaml.safe_load(str(v))`.
fn to_bool(value: &Value, ctx: &TypeCtx) -> Result<bool> {
    if let Value::Bool(b) = value {
        return Ok(*b);
    }
    match resolve_plain(py_str(value).trim(), YamlVersion::V1_1) {
        Resolved::Bool(b) => Ok(b),
        _ => Err(ctx.err(
            ErrorClass::InvalidValue,
            format!(
                "expects a boolean value (yes/no, true/false, on/off), got '{}'",
                py_str(value)
            ),
        )),
    }
}

fn to_int(value: &Value, ctx: &TypeCtx) -> Result<Value> {
    if value.is_i64() || value.is_u64() {
        return Ok(value.clone());
    }
    crate::cli::parse_int(&py_str(value))
        .map(Value::from)
        .ok_or_else(|| {
            ctx.err(
                ErrorClass::InvalidValue,
                format!("expects an integer, got '{}'", py_str(value)),
            )
        })
}

fn key_value_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let pair = r"[\w\-.]+:[\w\-.:/]+";
        Regex::new(&format!(r"^({pair},)*{pair}$")).expect("static regex")
    })
}

/// `a:1,b:2` -> `{a: "1", b: "2"}`.
fn key_value_list(text: &str, ctx: &TypeCtx) -> Result<Value> {
    if !key_value_re().is_match(text) {
        return Err(ctx.err(
            ErrorClass::BadDictFormat,
            format!("'{text}' is not in the format KEY:VALUE,KEY:VALUE"),
        ));
    }
    let mut out = Map::new();
    for pair in text.split(',') {
        if let Some((k, v)) = pair.split_once(':') {
            out.insert(k.to_string(), Value::String(v.to_string()));
        }
    }
    Ok(Value::Object(out))
}

/// `section.option=value,...` (or a list of such items) -> nested mapping;
/// `\.` keeps a dot inside a key. `nested: false` (type `Dict`) keeps keys whole.
fn nested_dict(value: &Value, nested: bool, ctx: &TypeCtx) -> Result<Value> {
    let items: Vec<String> = match value {
        Value::Array(items) => items.iter().map(py_str).collect(),
        other => split(&py_str(other), ','),
    };
    let mut out = Value::Object(Map::new());
    for item in items {
        let item = item.trim();
        let Some((key, val)) = item.split_once('=') else {
            return Err(ctx.err(
                ErrorClass::BadDictFormat,
                format!("'{item}' is not in the format KEY=VALUE"),
            ));
        };
        let path: Vec<String> = if nested {
            split_unescaped_dots(key)
        } else {
            vec![key.to_string()]
        };
        insert_path(
            &mut out,
            &path,
            Value::String(val.to_string()),
            ListMerge::Replace,
        );
    }
    Ok(out)
}

fn split_unescaped_dots(key: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut escaped = false;
    for c in key.chars() {
        match c {
            '\\' => escaped = true,
            '.' if !escaped => parts.push(String::new()),
            c => {
                escaped = false;
                parts.last_mut().expect("one part").push(c);
            }
        }
        if c == '.' {
            escaped = false;
        }
    }
    parts
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lookup {
    File,
    VarFile,
    VarDir,
}

fn path_value(p: PathBuf) -> Value {
    Value::String(p.display().to_string())
}

/// `a/./b/../c` -> `a/c` without touching the file system (Python's abspath).
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn find(value: &str, kind: Lookup, ctx: &TypeCtx) -> Result<PathBuf> {
    if value.is_empty() {
        return Err(ctx.err(ErrorClass::FileNotFound, "an empty file name"));
    }
    let rel = ctx.option_dir();
    let mut candidates = vec![ctx.cwd.join(value), ctx.cwd.join(&rel).join(value)];
    if kind != Lookup::File {
        candidates.push(ctx.plugin_dir.join("vars").join(&rel).join(value));
        candidates.push(ctx.plugin_dir.join("defaults").join(&rel).join(value));
    }
    if kind != Lookup::VarDir && !value.ends_with(".yml") {
        let with_ext: Vec<PathBuf> = candidates
            .iter()
            .map(|p| PathBuf::from(format!("{}.yml", p.display())))
            .collect();
        candidates.extend(with_ext);
    }
    let exists = |p: &PathBuf| {
        if kind == Lookup::VarDir {
            p.is_dir()
        } else {
            p.is_file()
        }
    };
    if let Some(found) = candidates.iter().find(|p| exists(p)) {
        return Ok(normalise(found));
    }
    let what = if kind == Lookup::VarDir {
        "directory"
    } else {
        "file"
    };
    let mut err = ctx.err(
        ErrorClass::FileNotFound,
        format!("{what} '{value}' not found"),
    );
    for p in &candidates {
        err = err.with_note(format!("searched: {}", normalise(p).display()));
    }
    Err(err)
}

/// `controller:3,compute:2` -> `{<path of controller.yml>: 3, ...}`.
fn topology(text: &str, ctx: &TypeCtx) -> Result<Value> {
    let mut out = Map::new();
    for item in text.split(',') {
        let parsed = item
            .split_once(':')
            .and_then(|(name, count)| Some((name, crate::cli::parse_int(count)?)));
        let Some((name, count)) = parsed.filter(|(n, _)| !n.trim().is_empty()) else {
            return Err(ctx.err(
                ErrorClass::BadTopologyFormat,
                format!("'{item}' of '{text}' is not in the format NAME:COUNT (e.g. controller:3,compute:2)"),
            ));
        };
        let path = find(name.trim(), Lookup::VarFile, ctx)?;
        out.insert(path.display().to_string(), Value::from(count));
    }
    Ok(Value::Object(out))
}

/// The allowed names of a `ListOfFileNames` option (file stems of its lookup_dir).
pub fn file_name_choices(plugin_dir: &Path, lookup_dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(plugin_dir.join(lookup_dir))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let p = e.path();
                    p.file_stem().and_then(|s| s.to_str()).map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names.dedup();
    names
}

fn file_names(text: &str, ctx: &TypeCtx) -> Result<Value> {
    let dir = ctx.lookup_dir.unwrap_or_default();
    let allowed = file_name_choices(ctx.plugin_dir, dir);
    let mut out = Vec::new();
    for item in text.split(',') {
        if !allowed.iter().any(|a| a == item) {
            return Err(ctx.err(
                ErrorClass::FileNotFound,
                format!(
                    "'{item}' is not a file of {} (allowed: {})",
                    ctx.plugin_dir.join(dir).display(),
                    allowed.join(", ")
                ),
            ));
        }
        out.push(Value::String(item.to_string()));
    }
    Ok(Value::Array(out))
}

/// The `.yml` names (without extension) in the option's `vars/` and
/// `defaults/` folders: what `__LISTYAMLS__` in a help text stands for.
pub fn available_yamls(plugin_dir: &Path, option: &str) -> Vec<String> {
    let rel: PathBuf = option.split('-').collect();
    let mut names = Vec::new();
    for base in ["vars", "defaults"] {
        let Ok(rd) = std::fs::read_dir(plugin_dir.join(base).join(&rel)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".yml") {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx<'a>(dir: &'a Path) -> TypeCtx<'a> {
        TypeCtx {
            plugin_dir: dir,
            cwd: dir,
            option: "opt",
            lookup_dir: None,
        }
    }

    #[test]
    fn nested_dicts() {
        let d = Path::new("/");
        let v = resolve(Some("NestedDict"), &json!("a.b=1,a.c=2,x\\.y=3"), &ctx(d)).unwrap();
        assert_eq!(v, json!({"a": {"b": "1", "c": "2"}, "x.y": "3"}));
        let v = resolve(Some("Dict"), &json!(["a.b=1"]), &ctx(d)).unwrap();
        assert_eq!(v, json!({"a.b": "1"}));
        let v = resolve(Some("NestedList"), &json!(["a=1", "b.c=2"]), &ctx(d)).unwrap();
        assert_eq!(v, json!([{"a": "1"}, {"b": {"c": "2"}}]));
        assert!(resolve(Some("IniType"), &json!("novalue"), &ctx(d)).is_err());
    }

    #[test]
    fn scalars() {
        let d = Path::new("/");
        assert_eq!(
            resolve(Some("Bool"), &json!("yes"), &ctx(d)).unwrap(),
            json!(true)
        );
        assert_eq!(
            resolve(Some("Bool"), &json!("Off"), &ctx(d)).unwrap(),
            json!(false)
        );
        assert!(resolve(Some("Bool"), &json!("maybe"), &ctx(d)).is_err());
        assert_eq!(
            resolve(Some("ListValue"), &json!("a,b"), &ctx(d)).unwrap(),
            json!(["a", "b"])
        );
        assert_eq!(
            resolve(Some("KeyValueList"), &json!("a:1,b:x/y"), &ctx(d)).unwrap(),
            json!({"a": "1", "b": "x/y"})
        );
        assert!(resolve(Some("KeyValueList"), &json!("a=1"), &ctx(d)).is_err());
        assert_eq!(
            resolve(Some("AdditionalArgs"), &json!("tags=a;check"), &ctx(d)).unwrap(),
            json!(["--tags", "a", "--check"])
        );
    }

    #[test]
    fn files_and_topology() {
        let dir = tempfile::tempdir().unwrap();
        let nodes = dir.path().join("defaults/topology/nodes");
        std::fs::create_dir_all(&nodes).unwrap();
        std::fs::write(nodes.join("compute.yml"), "name: compute\n").unwrap();
        let c = TypeCtx {
            plugin_dir: dir.path(),
            cwd: Path::new("/nonexistent"),
            option: "topology-nodes",
            lookup_dir: None,
        };
        let v = resolve(Some("ListOfTopologyFiles"), &json!("compute:2"), &c).unwrap();
        let key = nodes.join("compute.yml").display().to_string();
        assert_eq!(v, json!({key.clone(): 2}));
        assert_eq!(
            resolve(Some("VarFile"), &json!("compute"), &c).unwrap(),
            json!(key)
        );
        let err = resolve(Some("ListOfTopologyFiles"), &json!("compute"), &c).unwrap_err();
        assert_eq!(err.class, ErrorClass::BadTopologyFormat);
        let err = resolve(Some("VarFile"), &json!("nope"), &c).unwrap_err();
        assert_eq!(err.class, ErrorClass::FileNotFound);
        assert!(err.notes.len() >= 4);
    }
}
