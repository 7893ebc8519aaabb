//! One invocation from start to settings tree, in the reference's order:
//! spec -> environment -> command line -> INI -> generate-config ->
//! unknown options -> required -> settings types -> files -> extra vars -> lookups.

use crate::cli::{self, HelpTarget};
use crate::error::{ErrorClass, Result, SpecError};
use crate::generate::generate;
use crate::help;
use crate::ini::Ini;
use crate::load::load_command;
use crate::lookup::resolve_lookups;
use crate::model::{Action, CommandSpec, OptionSpec, ParserSpec};
use crate::required;
use crate::sources::{env_values, ini_values, share_values, ParserValues};
use crate::tree::{insert_path, merge, ListMerge};
use crate::types::{ResolveContext, TypeRegistry};
use crate::yamlfile::load_settings_file;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use vetro_diag::SourceMap;

/// What to run.
#[derive(Clone, Debug)]
pub struct Request {
    /// The settings root.
    pub settings_root: PathBuf,
    /// `COMMAND [options] SUBCOMMAND [options]`.
    pub args: Vec<String>,
    /// Relative paths (INI, `--input`, `-e @file`, YAML files) start here.
    pub cwd: PathBuf,
    /// The environment the option variables are read from.
    pub env: HashMap<String, String>,
}

/// The settings of a successful invocation.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub command: String,
    pub subcommand: String,
    /// The settings tree (what the playbook gets as extra-vars).
    pub settings: Value,
    /// Control option values, command-level parser first (for the runner).
    pub control: IndexMap<String, Value>,
    /// The values of `AdditionalArgs` options (`tags=a;forks=5`), in order.
    pub additional_args: Vec<String>,
}

/// The outcome of an invocation.
#[derive(Clone, Debug)]
pub enum Outcome {
    Help(String),
    /// A generate-config option wrote this file.
    GeneratedConfig(PathBuf),
    Settings(Box<Resolved>),
}

/// Option types that are not settings types: they stay control options.
const CONTROL_TYPES: &[&str] = &["int", "float", "str", "AdditionalArgs"];

/// The engine: settings types plus the procedure.
#[derive(Default)]
pub struct Engine {
    pub types: TypeRegistry,
}

/// The commands of a settings tree (its folders), sorted.
pub fn commands(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_dir())
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

impl Engine {
    pub fn new(types: TypeRegistry) -> Self {
        Engine { types }
    }

    fn is_settings(&self, opt: &OptionSpec) -> bool {
        opt.type_name
            .as_deref()
            .is_some_and(|t| self.types.get(t).is_some())
    }

    /// Load a command's spec (`unknown_command` if it has no folder).
    pub fn load_spec(
        &self,
        root: &Path,
        command: &str,
        sources: &mut SourceMap,
    ) -> Result<CommandSpec> {
        let known = commands(root);
        if command.starts_with('.') || !known.iter().any(|c| c == command) {
            return Err(SpecError::new(
                ErrorClass::UnknownCommand,
                format!(
                    "unknown command '{command}' (commands of {}: {})",
                    root.display(),
                    known.join(", ")
                ),
            ));
        }
        let spec = load_command(root, command, sources)?;
        self.check_types(&spec)?;
        Ok(spec)
    }

    /// Every `type:` names a settings type or one of the control types
    /// (`int`, `float`, `str`, `AdditionalArgs`); anything else would be
    /// silently dropped from the settings.
    fn check_types(&self, spec: &CommandSpec) -> Result<()> {
        for parser in std::iter::once(&spec.main).chain(&spec.subcommands) {
            for opt in parser.all_options() {
                let Some(t) = opt.type_name.as_deref() else {
                    continue;
                };
                if self.types.get(t).is_some() || CONTROL_TYPES.contains(&t) {
                    continue;
                }
                let mut known: Vec<&str> = self.types.names();
                known.extend(CONTROL_TYPES);
                return Err(SpecError::new(
                    ErrorClass::SpecError,
                    format!(
                        "unknown type '{t}' of option '{}' (known types: {})",
                        opt.name,
                        known.join(", ")
                    ),
                )
                .with_span(opt.span));
            }
        }
        Ok(())
    }

    /// Run one invocation.
    pub fn run(&self, req: &Request, sources: &mut SourceMap) -> Result<Outcome> {
        let root = &req.settings_root;
        let Some(command) = req.args.first() else {
            return Err(SpecError::new(
                ErrorClass::UnknownCommand,
                format!("no COMMAND given (commands: {})", commands(root).join(", ")),
            ));
        };
        let spec = self.load_spec(root, command, sources)?;

        // Environment integers are checked for every parser before anything else.
        let main_env = env_values(&spec.main, &req.env)?;
        let mut sub_envs = HashMap::new();
        for sub in &spec.subcommands {
            sub_envs.insert(sub.name.clone(), env_values(sub, &req.env)?);
        }

        let parsed = cli::parse(&spec, &req.args[1..])?;
        let prog = format!("vetro spec {command}");
        let allowed =
            |p: &ParserSpec, o: &OptionSpec| self.allowed_values(root, &spec, p, o, &req.cwd);
        match &parsed.help {
            Some(HelpTarget::Command) => {
                return Ok(Outcome::Help(help::command_help(&prog, &spec, &allowed)))
            }
            Some(HelpTarget::Subcommand(name)) => {
                if let Some(sub) = spec.subcommand(name) {
                    return Ok(Outcome::Help(help::subcommand_help(&prog, sub, &allowed)));
                }
            }
            None => {}
        }
        let Some((sub_name, sub_cli)) = parsed.subcommand.clone() else {
            let names: Vec<&str> = spec.subcommands.iter().map(|s| s.name.as_str()).collect();
            return Err(SpecError::new(
                ErrorClass::MissingSubcommand,
                format!(
                    "{command}: a subcommand is required (one of: {})",
                    names.join(", ")
                ),
            ));
        };
        let sub_spec = spec.subcommand(&sub_name).ok_or_else(|| {
            SpecError::new(
                ErrorClass::UnknownSubcommand,
                format!("unknown subcommand '{sub_name}'"),
            )
        })?;

        let mut main = ParserValues::new(&spec.main, parsed.main.clone(), main_env);
        let mut sub = ParserValues::new(
            sub_spec,
            sub_cli,
            sub_envs.remove(&sub_name).unwrap_or_default(),
        );
        share_values(&mut main, &mut sub);
        self.read_config(&mut sub, req)?;
        share_values(&mut main, &mut sub);

        if let Some(path) = self.generate_config_target(&[&main, &sub]) {
            let path = req.cwd.join(path);
            generate(&path, sub_spec)?;
            return Ok(Outcome::GeneratedConfig(path));
        }
        if !parsed.unknown.is_empty() {
            return Err(SpecError::new(
                ErrorClass::UnknownOption,
                format!("unrecognized arguments: {}", parsed.unknown.join(" ")),
            ));
        }
        required::check(&[(command.as_str(), &main), (sub_name.as_str(), &sub)])?;

        let user = self.user_tree(&spec, &main, &sub, req, sources)?;
        let mut settings = self.base_tree(&spec, &sub_name, &main, &sub, req, sources)?;
        merge(&mut settings, user, ListMerge::Replace);
        self.apply_extra_vars(&mut settings, &main, &sub, req, sources)?;
        resolve_lookups(&mut settings)?;

        let mut control = IndexMap::new();
        let mut additional_args = Vec::new();
        for p in [&main, &sub] {
            for opt in p.spec.all_options() {
                if self.is_settings(opt) {
                    continue;
                }
                if let Some(v) = p.value(opt) {
                    if opt.type_name.as_deref() == Some("AdditionalArgs") {
                        if let Some(text) = v.as_str() {
                            additional_args.push(text.to_string());
                        }
                    }
                    control.entry(opt.name.clone()).or_insert(v);
                }
            }
        }
        Ok(Outcome::Settings(Box::new(Resolved {
            command: command.clone(),
            subcommand: sub_name,
            settings,
            control,
            additional_args,
        })))
    }

    /// A read-config option given on the command line loads its INI file's
    /// section of the subcommand (only the last file counts).
    fn read_config(&self, sub: &mut ParserValues, req: &Request) -> Result<()> {
        let file = sub
            .spec
            .all_options()
            .into_iter()
            .filter(|o| o.action == Action::ReadConfig)
            .find_map(|o| {
                sub.cli
                    .get(&o.name)
                    .and_then(|v| v.as_str().map(str::to_string))
            });
        let Some(file) = file else { return Ok(()) };
        let ini = Ini::read(&req.cwd.join(&file), true)?;
        let section = ini.section_values(&sub.spec.name);
        sub.ini = ini_values(sub.spec, section, &file)?;
        Ok(())
    }

    fn generate_config_target(&self, parsers: &[&ParserValues]) -> Option<String> {
        parsers.iter().find_map(|p| {
            p.spec
                .all_options()
                .into_iter()
                .filter(|o| o.action == Action::GenerateConfig)
                .find_map(|o| {
                    p.cli
                        .get(&o.name)
                        .and_then(|v| v.as_str().map(str::to_string))
                })
        })
    }

    /// `{COMMAND: {...}}` from the settings options, command-level parser first
    /// (its values win over the subcommand's for shared names).
    fn user_tree(
        &self,
        spec: &CommandSpec,
        main: &ParserValues,
        sub: &ParserValues,
        req: &Request,
        sources: &mut SourceMap,
    ) -> Result<Value> {
        let mut entries: Vec<(Vec<String>, Value)> = Vec::new();
        let mut written: HashSet<String> = HashSet::new();
        for (p, sub_dir) in [(main, spec.name.as_str()), (sub, sub.spec.name.as_str())] {
            for opt in p.spec.all_options() {
                if !self.is_settings(opt) || written.contains(&opt.name) {
                    continue;
                }
                let Some(value) = p.value(opt) else { continue };
                let Some(ty) = opt.type_name.as_deref().and_then(|t| self.types.get(t)) else {
                    continue;
                };
                let mut ctx = ResolveContext {
                    settings_root: &req.settings_root,
                    command: &spec.name,
                    subcommand: sub_dir,
                    option: &opt.name,
                    cwd: &req.cwd,
                    sources,
                };
                let resolved = ty.resolve(&value, &mut ctx)?;
                written.insert(opt.name.clone());
                let mut path = vec![spec.name.clone()];
                path.extend(opt.name.split('-').map(str::to_string));
                entries.push((path, resolved));
            }
        }
        let mut tree = Value::Object(Map::new());
        for (path, value) in entries {
            insert_path(&mut tree, &path, value, ListMerge::Replace);
        }
        Ok(tree)
    }

    /// `--input` files in order, then the subcommand skeleton `C/SUB/SUB.yml`.
    fn base_tree(
        &self,
        spec: &CommandSpec,
        sub_name: &str,
        main: &ParserValues,
        sub: &ParserValues,
        req: &Request,
        sources: &mut SourceMap,
    ) -> Result<Value> {
        let mut tree = Value::Object(Map::new());
        for file in list_values(control_value(main, sub, "input")) {
            let path = req.cwd.join(&file);
            if !path.is_file() {
                return Err(SpecError::new(
                    ErrorClass::FileNotFound,
                    format!("--input: file not found: {file}"),
                ));
            }
            merge(
                &mut tree,
                load_settings_file(&path, sources)?,
                ListMerge::Union,
            );
        }
        let skeleton = req
            .settings_root
            .join(&spec.name)
            .join(sub_name)
            .join(format!("{sub_name}.yml"));
        if skeleton.is_file() {
            merge(
                &mut tree,
                load_settings_file(&skeleton, sources)?,
                ListMerge::Union,
            );
        }
        Ok(tree)
    }

    /// `-e @FILE` merges a file, `-e a.b=value` sets one key.
    fn apply_extra_vars(
        &self,
        tree: &mut Value,
        main: &ParserValues,
        sub: &ParserValues,
        req: &Request,
        sources: &mut SourceMap,
    ) -> Result<()> {
        for item in list_values(control_value(main, sub, "extra-vars")) {
            if let Some(file) = item.strip_prefix('@') {
                if file.is_empty() {
                    return Err(SpecError::new(
                        ErrorClass::BadExtraVars,
                        "extra-vars '@' needs a file name: -e @FILE",
                    ));
                }
                let path = req.cwd.join(file);
                if !path.is_file() {
                    return Err(SpecError::new(
                        ErrorClass::FileNotFound,
                        format!("extra-vars file not found: {file}"),
                    ));
                }
                merge(tree, load_settings_file(&path, sources)?, ListMerge::Union);
            } else if let Some((key, value)) = item.split_once('=') {
                // The string replaces whatever is there (a list, a mapping).
                let path: Vec<String> = key.split('.').map(str::to_string).collect();
                insert_path(
                    tree,
                    &path,
                    Value::String(value.to_string()),
                    ListMerge::Replace,
                );
            } else {
                return Err(SpecError::new(
                    ErrorClass::BadExtraVars,
                    format!("extra-vars '{item}' is neither @FILE nor KEY=VALUE"),
                ));
            }
        }
        Ok(())
    }

    fn allowed_values(
        &self,
        root: &Path,
        spec: &CommandSpec,
        parser: &ParserSpec,
        opt: &OptionSpec,
        cwd: &Path,
    ) -> Vec<String> {
        let Some(ty) = opt.type_name.as_deref().and_then(|t| self.types.get(t)) else {
            return Vec::new();
        };
        let mut scratch = SourceMap::new();
        let sub_dir = if parser.name == spec.main.name {
            spec.name.as_str()
        } else {
            parser.name.as_str()
        };
        let ctx = ResolveContext {
            settings_root: root,
            command: &spec.name,
            subcommand: sub_dir,
            option: &opt.name,
            cwd,
            sources: &mut scratch,
        };
        ty.allowed_values(&ctx)
    }
}

/// A control option's value, the subcommand's definition first.
fn control_value(main: &ParserValues, sub: &ParserValues, name: &str) -> Option<Value> {
    sub.value_by_name(name).or_else(|| main.value_by_name(name))
}

/// A list value as strings (an environment value is one plain string).
fn list_values(v: Option<Value>) -> Vec<String> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.iter().map(crate::tree::py_str).collect(),
        Some(other) => vec![crate::tree::py_str(&other)],
    }
}
