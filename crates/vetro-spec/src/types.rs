//! Settings types: how an option's value becomes part of the settings tree.
//!
//! An option whose `type` names a registered [`SettingsType`] is a *settings
//! option*; every other option is a control option. New types are added by
//! implementing the trait and registering it:
//!
//! ```
//! use serde_json::{json, Value};
//! use vetro_spec::types::{ResolveContext, SettingsType, TypeRegistry};
//! use vetro_spec::Result;
//!
//! /// `--size=3` becomes `{"count": 3}` in the settings.
//! struct Counted;
//!
//! impl SettingsType for Counted {
//!     fn name(&self) -> &str {
//!         "Counted"
//!     }
//!     fn resolve(&self, value: &Value, _ctx: &mut ResolveContext) -> Result<Value> {
//!         let n: i64 = value.as_str().and_then(|s| s.parse().ok()).unwrap_or(0);
//!         Ok(json!({ "count": n }))
//!     }
//! }
//!
//! let mut types = TypeRegistry::with_builtins();
//! types.register(Box::new(Counted));
//! assert!(types.get("Counted").is_some());
//! ```

use crate::error::{ErrorClass, Result, SpecError};
use crate::yamlfile::load_settings_file;
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use vetro_diag::SourceMap;

/// What a type may look at while resolving one option's value.
pub struct ResolveContext<'a> {
    /// The settings root (`--settings DIR`).
    pub settings_root: &'a Path,
    pub command: &'a str,
    /// The subcommand; the command name itself for command-level options.
    pub subcommand: &'a str,
    /// The option name (`net-config`).
    pub option: &'a str,
    /// The current directory of the invocation.
    pub cwd: &'a Path,
    /// Every file read, for positions in later errors.
    pub sources: &'a mut SourceMap,
}

impl ResolveContext<'_> {
    /// The option name as a relative folder: `net-config` -> `net/config`.
    pub fn option_dir(&self) -> PathBuf {
        self.option.split('-').collect()
    }

    /// The search locations of files named by this option: the subcommand's
    /// folder, the command's folder (both followed by the option folder),
    /// then the current directory.
    pub fn search_dirs(&self) -> Vec<PathBuf> {
        let opt = self.option_dir();
        let cmd = self.settings_root.join(self.command);
        vec![
            cmd.join(self.subcommand).join(&opt),
            cmd.join(&opt),
            self.cwd.to_path_buf(),
        ]
    }

    /// The first existing `dir/name`; not found lists every place searched.
    pub fn find_file(&self, name: &str, dirs: &[PathBuf]) -> Result<PathBuf> {
        let candidate = Path::new(name);
        if candidate.is_absolute() {
            if candidate.is_file() {
                return Ok(candidate.to_path_buf());
            }
            return Err(SpecError::new(
                ErrorClass::FileNotFound,
                format!("--{}: file not found: {name}", self.option),
            ));
        }
        let tried: Vec<PathBuf> = dirs.iter().map(|d| d.join(name)).collect();
        if let Some(found) = tried.iter().find(|p| p.is_file()) {
            return Ok(found.clone());
        }
        let mut err = SpecError::new(
            ErrorClass::FileNotFound,
            format!("--{}: file '{name}' not found", self.option),
        );
        for p in &tried {
            err = err.with_note(format!("searched: {}", p.display()));
        }
        Err(err)
    }

    /// Find and load a YAML file into a value.
    pub fn load(&mut self, name: &str, dirs: &[PathBuf]) -> Result<Value> {
        let path = self.find_file(name, dirs)?;
        load_settings_file(&path, self.sources)
    }
}

/// A settings type (the equivalent of the reference's "complex types").
pub trait SettingsType: Send + Sync {
    /// The name used in `type:` of a spec option.
    fn name(&self) -> &str;
    /// Turn the option's value (from any source) into its settings value.
    fn resolve(&self, value: &Value, ctx: &mut ResolveContext) -> Result<Value>;
    /// Values to list in the help text (e.g. the files that can be named).
    fn allowed_values(&self, _ctx: &ResolveContext) -> Vec<String> {
        Vec::new()
    }
}

/// The registered settings types by name.
pub struct TypeRegistry {
    types: HashMap<String, Box<dyn SettingsType>>,
}

impl TypeRegistry {
    /// No types: every option is a control option.
    pub fn empty() -> Self {
        TypeRegistry {
            types: HashMap::new(),
        }
    }

    /// `Value`, `DictValue`, `YamlFile`, `ListOfYamls`, `Topology`.
    pub fn with_builtins() -> Self {
        let mut r = Self::empty();
        r.register(Box::new(PlainValue));
        r.register(Box::new(DictValue));
        r.register(Box::new(YamlFile));
        r.register(Box::new(ListOfYamls));
        r.register(Box::new(Topology));
        r
    }

    /// Add (or replace) a type.
    pub fn register(&mut self, t: Box<dyn SettingsType>) {
        self.types.insert(t.name().to_string(), t);
    }

    pub fn get(&self, name: &str) -> Option<&dyn SettingsType> {
        self.types.get(name).map(|b| b.as_ref())
    }

    /// The registered type names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.types.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

impl Default for TypeRegistry {
    fn default() -> Self {
        Self::with_builtins()
    }
}

/// A scalar value as text for the file-based types.
fn text_value(value: &Value, option: &str, what: &str) -> Result<String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(if *b { "True" } else { "False" }.to_string()),
        _ => Err(SpecError::new(
            ErrorClass::InvalidValue,
            format!("--{option}: a {what} value must be a single string, got {value}"),
        )),
    }
}

/// `Value`: stored as is.
pub struct PlainValue;

impl SettingsType for PlainValue {
    fn name(&self) -> &str {
        "Value"
    }
    fn resolve(&self, value: &Value, _ctx: &mut ResolveContext) -> Result<Value> {
        Ok(value.clone())
    }
}

/// `DictValue`: `k1=v1;k2=v2` -> `{k1: "v1", k2: "v2"}`.
pub struct DictValue;

impl SettingsType for DictValue {
    fn name(&self) -> &str {
        "DictValue"
    }
    fn resolve(&self, value: &Value, ctx: &mut ResolveContext) -> Result<Value> {
        let text = text_value(value, ctx.option, "DictValue")?;
        let mut out = Map::new();
        for item in text.split(';') {
            let item = item.trim();
            match item.split_once('=') {
                Some((k, v)) => {
                    out.insert(k.to_string(), Value::String(v.to_string()));
                }
                None => {
                    return Err(SpecError::new(
                        ErrorClass::BadDictFormat,
                        format!(
                            "--{}: '{text}' is not in the format 'key1=value1;key2=value2' (item '{item}' has no '=')",
                            ctx.option
                        ),
                    ))
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// `YamlFile`: the named file's content.
pub struct YamlFile;

impl SettingsType for YamlFile {
    fn name(&self) -> &str {
        "YamlFile"
    }
    fn resolve(&self, value: &Value, ctx: &mut ResolveContext) -> Result<Value> {
        let name = text_value(value, ctx.option, "YamlFile")?;
        let dirs = ctx.search_dirs();
        ctx.load(&name, &dirs)
    }
    fn allowed_values(&self, ctx: &ResolveContext) -> Vec<String> {
        yaml_files_in(&ctx.search_dirs()[..2], true)
    }
}

/// `ListOfYamls`: `a,b.yml` -> `{a: <a.yml>, b: <b.yml>}`.
pub struct ListOfYamls;

fn list_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^[-A-Za-z0-9_\s.]+(,[-A-Za-z0-9_\s.]*)*$").expect("static regex")
    })
}

impl SettingsType for ListOfYamls {
    fn name(&self) -> &str {
        "ListOfYamls"
    }
    fn resolve(&self, value: &Value, ctx: &mut ResolveContext) -> Result<Value> {
        let text = text_value(value, ctx.option, "ListOfYamls")?;
        if !list_re().is_match(&text) {
            return Err(SpecError::new(
                ErrorClass::BadListFormat,
                format!(
                    "--{}: '{text}' is not a comma separated list of names (letters, digits, '_', '-', '.')",
                    ctx.option
                ),
            ));
        }
        let dirs = ctx.search_dirs();
        let mut out = Map::new();
        for item in text.split(',') {
            let (file, key) = match item
                .strip_suffix(".yml")
                .or_else(|| item.strip_suffix(".yaml"))
            {
                Some(stem) => (item.to_string(), stem.to_string()),
                None => (format!("{item}.yml"), item.to_string()),
            };
            let content = ctx.load(&file, &dirs)?;
            out.insert(key, content);
        }
        Ok(Value::Object(out))
    }
    fn allowed_values(&self, ctx: &ResolveContext) -> Vec<String> {
        yaml_files_in(&ctx.search_dirs()[..2], false)
    }
}

/// `Topology`: `controller:1,compute:2` -> node files with `amount` added.
pub struct Topology;

fn topology_re() -> &'static (Regex, Regex) {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    RE.get_or_init(|| {
        (
            Regex::new(r"^([A-Za-z/_]+):([0-9]+)$").expect("static regex"),
            Regex::new(r"^([0-9]+)_([A-Za-z_/]+)$").expect("static regex"),
        )
    })
}

impl SettingsType for Topology {
    fn name(&self) -> &str {
        "Topology"
    }
    fn resolve(&self, value: &Value, ctx: &mut ResolveContext) -> Result<Value> {
        let text = text_value(value, ctx.option, "Topology")?;
        let (new_form, old_form) = topology_re();
        let mut dirs = vec![ctx.settings_root.join(ctx.command).join("topology")];
        dirs.extend(ctx.search_dirs());
        let mut out = Map::new();
        for item in text.split(',') {
            let (name, count) = if let Some(c) = new_form.captures(item) {
                (c[1].to_string(), c[2].to_string())
            } else if let Some(c) = old_form.captures(item) {
                (c[2].to_string(), c[1].to_string())
            } else {
                return Err(SpecError::new(
                    ErrorClass::BadTopologyFormat,
                    format!(
                        "--{}: '{item}' of '{text}' is not in the format 'name:count' (e.g. controller:1,compute:2)",
                        ctx.option
                    ),
                ));
            };
            let amount: u64 = count.trim_start_matches('0').parse().unwrap_or(0);
            let mut node = ctx.load(&format!("{name}.yml"), &dirs)?;
            match node.as_object_mut() {
                Some(map) => {
                    map.insert("amount".into(), Value::from(amount));
                }
                None => {
                    return Err(SpecError::new(
                        ErrorClass::BadTopologyFormat,
                        format!(
                            "--{}: the node file {name}.yml must hold a mapping",
                            ctx.option
                        ),
                    ))
                }
            }
            out.insert(name, node);
        }
        Ok(Value::Object(out))
    }
}

/// The `.yml`/`.yaml` file names directly in `dirs` (with or without extension).
fn yaml_files_in(dirs: &[PathBuf], with_ext: bool) -> Vec<String> {
    let mut names = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if p.is_file() && (ext == "yml" || ext == "yaml") {
                let shown = if with_ext {
                    p.file_name()
                } else {
                    p.file_stem()
                };
                if let Some(s) = shown.and_then(|s| s.to_str()) {
                    if !names.iter().any(|n| n == s) {
                        names.push(s.to_string());
                    }
                }
            }
        }
    }
    names.sort();
    names
}
