//! One `vetro ir NAME [options]` invocation, in InfraRed's order: command
//! line -> defaults (`IR_NAME` environment variables, spec defaults) ->
//! answers file -> generate-answers -> deprecated options -> required /
//! silent / required_when -> choices and limits -> option types -> vars tree
//! -> extra vars.

use super::answers::{read_answers, write_answers};
use super::convert::{nests_when_shared, resolve, TypeCtx};
use super::help::{allowed_values, plugin_help};
use super::vars::{apply_extra_vars, nest};
use super::Plugin;
use crate::cli::{self, parse_int};
use crate::error::{ErrorClass, Result, SpecError};
use crate::model::{Action, CommandSpec, OptionSpec};
use crate::tree::py_str;
use crate::when::Operand;
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use vetro_diag::SourceMap;

/// Option values by name.
pub type Values = IndexMap<String, Value>;

/// What to run.
#[derive(Clone, Debug)]
pub struct IrRequest {
    /// Everything after the plugin name.
    pub args: Vec<String>,
    /// Relative paths (answers files, `-e @FILE`, file options) start here.
    pub cwd: PathBuf,
    /// Where `IR_*` defaults and `$VAR`s of answers files come from.
    pub env: HashMap<String, String>,
}

/// The result of a successful invocation.
#[derive(Clone, Debug, Default)]
pub struct IrVars {
    /// The vars tree (the playbook's extra-vars).
    pub vars: Value,
    pub dry_run: bool,
    /// `-o FILE`: where to write the vars tree.
    pub output: Option<PathBuf>,
    /// `-v` count.
    pub verbose: u64,
    pub inventory: Option<PathBuf>,
    /// `--ansible-args`, already split into ansible-playbook arguments.
    pub ansible_args: Vec<String>,
    /// Notes for the user (deprecated options used, ...).
    pub warnings: Vec<String>,
}

/// What an invocation produced.
#[derive(Clone, Debug)]
pub enum IrOutcome {
    Help(String),
    /// `--generate-answers-file` wrote this file.
    AnswersWritten(PathBuf),
    Vars(Box<IrVars>),
}

/// Run one invocation of `plugin`.
pub fn invoke(plugin: &Plugin, req: &IrRequest, sources: &mut SourceMap) -> Result<IrOutcome> {
    let spec = CommandSpec {
        name: plugin.name.clone(),
        main: plugin.parser.clone(),
        subcommands: Vec::new(),
    };
    let parsed = cli::parse(&spec, &req.args)?;
    if parsed.help.is_some() {
        return Ok(IrOutcome::Help(plugin_help(
            &format!("vetro ir {}", plugin.name),
            plugin,
        )));
    }
    if !parsed.unknown.is_empty() {
        return Err(SpecError::new(
            ErrorClass::UnknownOption,
            format!("unrecognized arguments: {}", parsed.unknown.join(" ")),
        ));
    }
    let mut cli_values = parsed.main;
    let defaults = spec_defaults(plugin, &req.env)?;
    let mut file_values = Values::new();
    if let Some(file) = action_value(plugin, &cli_values, Action::ReadConfig) {
        file_values = read_answers(&req.cwd.join(file), plugin, &req.env)?;
    }
    if let Some(file) = action_value(plugin, &cli_values, Action::GenerateConfig) {
        let path = req.cwd.join(file);
        write_answers(&path, plugin, &cli_values, &defaults)?;
        return Ok(IrOutcome::AnswersWritten(path));
    }
    let mut warnings = Vec::new();
    apply_deprecations(plugin, &mut cli_values, &mut file_values, &mut warnings)?;
    let mut merged = defaults;
    merged.extend(file_values);
    merged.extend(cli_values);
    check_required(plugin, &merged)?;
    check_limits(plugin, &merged)?;
    let mut out = build_vars(plugin, &merged, req, sources)?;
    out.warnings = warnings;
    Ok(IrOutcome::Vars(Box::new(out)))
}

/// The command-line value of the option with `action` (the answers file options).
fn action_value(plugin: &Plugin, values: &Values, action: Action) -> Option<String> {
    plugin
        .parser
        .all_options()
        .into_iter()
        .filter(|o| o.action == action)
        .find_map(|o| values.get(&o.name).map(py_str))
}

/// Defaults: `IR_OPTION_NAME` from the environment, else the spec default,
/// else `false` for store-true options.
pub fn spec_defaults(plugin: &Plugin, env: &HashMap<String, String>) -> Result<Values> {
    let mut out = Values::new();
    for opt in plugin.parser.all_options() {
        let var = format!("IR_{}", opt.env_name());
        let from_env = env.get(&var).map(|t| (var.clone(), t)).or_else(|| {
            let name = opt.plugin.default_env.as_ref()?;
            env.get(name).map(|t| (name.clone(), t))
        });
        let value = match from_env {
            Some((var, text)) if opt.is_integer() || opt.plugin.default_env.is_some() => {
                Value::from(parse_int(text).ok_or_else(|| {
                    SpecError::new(
                        ErrorClass::InvalidValue,
                        format!(
                            "environment variable {var}='{text}': option '{}' needs an integer",
                            opt.name
                        ),
                    )
                })?)
            }
            Some((_, text)) => Value::String(text.clone()),
            None => match (&opt.default, opt.action) {
                (Some(d), _) if !d.is_null() => d.clone(),
                (_, Action::StoreTrue) => Value::Bool(false),
                _ => continue,
            },
        };
        out.insert(opt.name.clone(), value);
    }
    Ok(out)
}

/// A deprecated option's value moves to the option that replaces it; giving
/// both in one source is an error.
fn apply_deprecations(
    plugin: &Plugin,
    cli_values: &mut Values,
    file_values: &mut Values,
    warnings: &mut Vec<String>,
) -> Result<()> {
    for opt in plugin.parser.all_options() {
        let Some(old) = opt.plugin.deprecates.as_deref() else {
            continue;
        };
        for (source, values) in [
            ("command line", &mut *cli_values),
            ("answers file", &mut *file_values),
        ] {
            let Some(v) = values.get(old).cloned() else {
                continue;
            };
            if values.contains_key(&opt.name) {
                return Err(SpecError::new(
                    ErrorClass::InvalidValue,
                    format!(
                        "--{} replaces the deprecated --{old}: give only --{} ({source})",
                        opt.name, opt.name
                    ),
                ));
            }
            values.insert(opt.name.clone(), v);
            warnings.push(format!("--{old} is deprecated, use --{} instead", opt.name));
        }
    }
    Ok(())
}

/// Set, in InfraRed's sense: has a value, and a store-true one is not `false`.
fn is_set(opt: &OptionSpec, values: &Values) -> bool {
    match values.get(&opt.name) {
        None => false,
        Some(Value::Bool(false)) => opt.action != Action::StoreTrue,
        Some(_) => true,
    }
}

fn check_required(plugin: &Plugin, values: &Values) -> Result<()> {
    let options = plugin.parser.all_options();
    let silenced: HashSet<&str> = options
        .iter()
        .filter(|o| !o.silent.is_empty() && is_set(o, values))
        .flat_map(|o| o.silent.iter().map(String::as_str))
        .collect();
    let lookup = |token: &str| match options.iter().find(|o| o.name == token) {
        None => Operand::Literal,
        Some(o) => match values.get(&o.name) {
            None => Operand::Unset,
            Some(v) => Operand::Value(py_str(v)),
        },
    };
    let missing: Vec<String> = options
        .iter()
        .filter(|o| !silenced.contains(o.name.as_str()))
        .filter(|o| {
            let conditional = !o.plugin.required_when.is_empty()
                && o.plugin.required_when.iter().all(|w| w.holds(&lookup))
                && !is_set(o, values);
            (o.required && !values.contains_key(&o.name)) || conditional
        })
        .map(|o| format!("'{}'", o.name))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(SpecError::new(
        ErrorClass::MissingRequired,
        format!(
            "Required options are not set:\n * [{}]: {}",
            plugin.name,
            missing.join(", ")
        ),
    ))
}

/// `choices` (whatever the value's source), `length`, `minimum`, `maximum`.
fn check_limits(plugin: &Plugin, values: &Values) -> Result<()> {
    for opt in plugin.parser.all_options() {
        let Some(value) = values.get(&opt.name) else {
            continue;
        };
        let allowed = if opt.choices.is_empty() {
            Vec::new()
        } else {
            allowed_values(plugin, opt)
        };
        let items: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            v => vec![v],
        };
        if let Some(bad) = items
            .iter()
            .find(|v| !allowed.is_empty() && !allowed.contains(&py_str(v)))
        {
            return Err(SpecError::new(
                ErrorClass::InvalidChoice,
                format!(
                    "argument --{}: invalid choice: '{}' (choose from {})",
                    opt.name,
                    py_str(bad),
                    allowed
                        .iter()
                        .map(|c| format!("'{c}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let text = py_str(value);
        if let Some(n) = opt.plugin.length.filter(|n| text.chars().count() > *n) {
            return Err(SpecError::new(
                ErrorClass::InvalidValue,
                format!(
                    "argument --{}: '{text}' is longer than {n} characters",
                    opt.name
                ),
            ));
        }
        if opt.plugin.minimum.is_some() || opt.plugin.maximum.is_some() {
            let n = value
                .as_f64()
                .or_else(|| text.trim().parse::<f64>().ok())
                .ok_or_else(|| {
                    SpecError::new(
                        ErrorClass::InvalidValue,
                        format!("argument --{}: '{text}' is not a number", opt.name),
                    )
                })?;
            let low = opt.plugin.minimum.is_some_and(|m| n < m);
            let high = opt.plugin.maximum.is_some_and(|m| n > m);
            if low || high {
                return Err(SpecError::new(
                    ErrorClass::InvalidValue,
                    format!(
                        "argument --{}: {text} is outside [{}, {}]",
                        opt.name,
                        opt.plugin.minimum.map_or("-inf".into(), |m| m.to_string()),
                        opt.plugin.maximum.map_or("inf".into(), |m| m.to_string())
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Resolve every value per its type and sort it into the vars tree or the
/// control values of the run.
fn build_vars(
    plugin: &Plugin,
    values: &Values,
    req: &IrRequest,
    sources: &mut SourceMap,
) -> Result<IrVars> {
    let mut nested = Vec::new();
    let mut custom = Vec::new();
    let mut control = Values::new();
    for opt in plugin.parser.all_options() {
        let Some(value) = values.get(&opt.name) else {
            continue;
        };
        let ctx = TypeCtx {
            plugin_dir: &plugin.dir,
            cwd: &req.cwd,
            option: &opt.name,
            lookup_dir: opt.plugin.lookup_dir.as_deref(),
        };
        let resolved = resolve(opt.type_name.as_deref(), value, &ctx)?;
        if opt.plugin.shared && !nests_when_shared(opt.type_name.as_deref()) {
            control.insert(opt.name.clone(), resolved);
        } else if let Some(var) = &opt.plugin.ansible_variable {
            custom.push((var.clone(), resolved));
        } else {
            nested.push((opt.name.clone(), resolved));
        }
    }
    let mut vars = nest(&plugin.plugin_type, &nested, &custom)?;
    let extra: Vec<String> = match control.get("extra-vars") {
        Some(Value::Array(items)) => items.iter().map(py_str).collect(),
        Some(v) => vec![py_str(v)],
        None => Vec::new(),
    };
    apply_extra_vars(&mut vars, &extra, &req.cwd, sources)?;
    let path = |name: &str| control.get(name).map(|v| req.cwd.join(py_str(v)));
    Ok(IrVars {
        vars,
        dry_run: control.get("dry-run") == Some(&Value::Bool(true)),
        output: path("output"),
        verbose: control.get("verbose").and_then(Value::as_u64).unwrap_or(0),
        inventory: path("inventory"),
        ansible_args: match control.get("ansible-args") {
            Some(Value::Array(items)) => items.iter().map(py_str).collect(),
            _ => Vec::new(),
        },
        warnings: Vec::new(),
    })
}

/// The ansible-playbook arguments of a run (without the program):
/// `[-i INVENTORY] [-v...] --extra-vars @VARS_FILE [ANSIBLE_ARGS] PLAYBOOK`.
pub fn playbook_argv(plugin: &Plugin, run: &IrVars, vars_file: &Path) -> Vec<String> {
    let mut argv = Vec::new();
    if let Some(inv) = &run.inventory {
        argv.push("-i".to_string());
        argv.push(inv.display().to_string());
    }
    if run.verbose > 0 {
        argv.push(format!("-{}", "v".repeat(run.verbose.min(6) as usize)));
    }
    argv.push("--extra-vars".to_string());
    argv.push(format!("@{}", vars_file.display()));
    argv.extend(run.ansible_args.iter().cloned());
    argv.push(plugin.playbook().display().to_string());
    argv
}
