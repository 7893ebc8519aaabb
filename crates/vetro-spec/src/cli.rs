//! The command line built at run time: a `clap::Command` made from the spec
//! model, parsed with argparse's conventions (unknown tokens collected rather
//! than fatal, unique long-option prefixes, last occurrence wins).

use crate::error::{ErrorClass, Result, SpecError};
use crate::model::{Action, CommandSpec, Nargs, OptionSpec, ParserSpec};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, Command};
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::HashSet;

/// Marks "option given without a value" for `nargs: '?'`/`'*'`.
const NO_VALUE: &str = "\u{0}vetro:no-value";
/// The id of the help flag (not a valid spec option name).
const HELP_ID: &str = "--help--";

/// Values given on the command line to one parser, by option name.
pub type CliValues = IndexMap<String, Value>;

/// Which help text was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelpTarget {
    Command,
    Subcommand(String),
}

/// The outcome of parsing the tokens after `COMMAND`.
#[derive(Clone, Debug, Default)]
pub struct ParsedArgs {
    pub main: CliValues,
    pub subcommand: Option<(String, CliValues)>,
    /// Tokens no parser accepted, in order.
    pub unknown: Vec<String>,
    pub help: Option<HelpTarget>,
}

/// Build the clap command of a spec command (its subcommands included).
pub fn build_command(spec: &CommandSpec) -> Command {
    let mut cmd = parser_command(&spec.main, spec.name.clone());
    for sub in &spec.subcommands {
        let mut sc = parser_command(sub, sub.name.clone());
        if !sub.help.is_empty() {
            sc = sc.about(sub.help.clone());
        }
        cmd = cmd.subcommand(sc);
    }
    cmd
}

fn parser_command(parser: &ParserSpec, name: String) -> Command {
    let mut cmd = Command::new(name)
        .no_binary_name(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .infer_long_args(true)
        .args_override_self(true);
    let mut shorts: HashSet<char> = HashSet::new();
    let mut longs: HashSet<String> = HashSet::new();
    for group in &parser.groups {
        for opt in &group.options {
            if let Some(arg) = option_arg(opt, &mut shorts, &mut longs) {
                cmd = cmd.arg(arg.help_heading(group.title.clone()));
            }
        }
    }
    for opt in &parser.options {
        if let Some(arg) = option_arg(opt, &mut shorts, &mut longs) {
            cmd = cmd.arg(arg);
        }
    }
    let mut help = Arg::new(HELP_ID)
        .long("help")
        .action(ArgAction::Count)
        .help("show this help message and exit");
    if !shorts.contains(&'h') {
        help = help.short('h');
    }
    if !longs.contains("help") {
        cmd = cmd.arg(help);
    }
    cmd
}

/// The clap argument of one option; `None` when its name was already taken
/// in this parser (the first definition wins).
fn option_arg(
    opt: &OptionSpec,
    shorts: &mut HashSet<char>,
    longs: &mut HashSet<String>,
) -> Option<Arg> {
    if !longs.insert(opt.name.clone()) {
        return None;
    }
    let mut arg = Arg::new(opt.name.clone()).long(opt.name.clone());
    if let Some(c) = opt.short {
        if shorts.insert(c) {
            arg = arg.short(c);
        }
    }
    if !opt.help.is_empty() {
        arg = arg.help(opt.help.clone());
    }
    if opt.action.is_flag() {
        return Some(arg.action(ArgAction::Count));
    }
    arg = arg
        .action(ArgAction::Append)
        .allow_negative_numbers(true)
        .value_name(
            opt.metavar
                .clone()
                .unwrap_or_else(|| opt.name.to_uppercase()),
        );
    arg = match opt.nargs {
        None => arg.num_args(1),
        Some(Nargs::Optional) => arg.num_args(0..=1).default_missing_value(NO_VALUE),
        Some(Nargs::ZeroOrMore) => arg.num_args(0..).default_missing_value(NO_VALUE),
        Some(Nargs::OneOrMore) => arg.num_args(1..),
        Some(Nargs::Exactly(n)) => arg.num_args(n),
    };
    Some(arg)
}

/// Parse the tokens after `COMMAND`.
pub fn parse(spec: &CommandSpec, tokens: &[String]) -> Result<ParsedArgs> {
    let cmd = build_command(spec);
    let mut tokens: Vec<String> = tokens.to_vec();
    let mut unknown = Vec::new();
    let matches = loop {
        match cmd.clone().try_get_matches_from(&tokens) {
            Ok(m) => break m,
            Err(e) => match e.kind() {
                ErrorKind::UnknownArgument => {
                    let bad = context_str(&e, ContextKind::InvalidArg).unwrap_or_default();
                    check_ambiguous(spec, &tokens, &bad)?;
                    match locate(&tokens, &bad) {
                        Some(i) => unknown.push(tokens.remove(i)),
                        None => {
                            return Err(SpecError::new(
                                ErrorClass::UnknownOption,
                                format!("unrecognized arguments: {bad}"),
                            ))
                        }
                    }
                }
                ErrorKind::InvalidSubcommand => {
                    let name = context_str(&e, ContextKind::InvalidSubcommand).unwrap_or_default();
                    let known: Vec<&str> =
                        spec.subcommands.iter().map(|s| s.name.as_str()).collect();
                    return Err(SpecError::new(
                        ErrorClass::UnknownSubcommand,
                        format!(
                            "{}: invalid subcommand '{name}' (choose from {})",
                            spec.name,
                            quoted_list(&known)
                        ),
                    ));
                }
                _ => {
                    return Err(SpecError::new(
                        ErrorClass::InvalidValue,
                        first_line(&e.to_string()),
                    ))
                }
            },
        }
    };
    let mut parsed = ParsedArgs {
        unknown,
        ..ParsedArgs::default()
    };
    if help_count(&matches) > 0 {
        parsed.help = Some(HelpTarget::Command);
    }
    parsed.main = collect(&spec.main, &matches)?;
    if let Some((name, sub_matches)) = matches.subcommand() {
        if let Some(sub) = spec.subcommand(name) {
            if parsed.help.is_none() && help_count(sub_matches) > 0 {
                parsed.help = Some(HelpTarget::Subcommand(name.to_string()));
            }
            parsed.subcommand = Some((name.to_string(), collect(sub, sub_matches)?));
        }
    }
    Ok(parsed)
}

/// How often -h/--help was given (0 when a spec option took its place).
fn help_count(m: &ArgMatches) -> u8 {
    m.try_get_one::<u8>(HELP_ID)
        .ok()
        .flatten()
        .copied()
        .unwrap_or(0)
}

fn context_str(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        _ => None,
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("error: ")
        .to_string()
}

fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Index of the token clap rejected.
fn locate(tokens: &[String], bad: &str) -> Option<usize> {
    if bad.is_empty() {
        return None;
    }
    tokens
        .iter()
        .position(|t| t == bad)
        .or_else(|| {
            tokens
                .iter()
                .position(|t| t.starts_with(&format!("{bad}=")))
        })
        .or_else(|| {
            tokens
                .iter()
                .position(|t| !bad.starts_with("--") && t.starts_with(bad))
        })
}

/// An abbreviated long option matching several options of its parser is an
/// error of its own (argparse's "ambiguous option").
fn check_ambiguous(spec: &CommandSpec, tokens: &[String], bad: &str) -> Result<()> {
    let Some(body) = bad.strip_prefix("--") else {
        return Ok(());
    };
    let prefix = body.split('=').next().unwrap_or("");
    if prefix.is_empty() {
        return Ok(());
    }
    let position = tokens
        .iter()
        .position(|t| t == bad || t.starts_with(&format!("{bad}=")));
    let sub_at = tokens.iter().position(|t| spec.subcommand(t).is_some());
    let parser = match (position, sub_at) {
        (Some(p), Some(s)) if p > s => spec.subcommand(&tokens[s]).unwrap_or(&spec.main),
        _ => &spec.main,
    };
    let names = parser.long_names();
    if names.iter().any(|n| n == prefix) {
        return Ok(());
    }
    let matching: Vec<&str> = names
        .iter()
        .filter(|n| n.starts_with(prefix))
        .map(|n| n.as_str())
        .collect();
    if matching.len() > 1 {
        return Err(SpecError::new(
            ErrorClass::AmbiguousOption,
            format!(
                "ambiguous option: --{prefix} could match {}",
                matching
                    .iter()
                    .map(|n| format!("--{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(())
}

/// The command-line values of one parser, converted per action, `nargs`,
/// `choices` and `type: int|float`.
fn collect(parser: &ParserSpec, m: &ArgMatches) -> Result<CliValues> {
    let mut out = CliValues::new();
    for opt in parser.all_options() {
        if m.try_contains_id(&opt.name).is_err() {
            continue;
        }
        if opt.action.is_flag() {
            let n = m.get_count(&opt.name);
            if n == 0 {
                continue;
            }
            let v = match opt.action {
                Action::StoreTrue => Value::Bool(true),
                Action::StoreFalse => Value::Bool(false),
                Action::StoreConst => opt.constant.clone().unwrap_or(Value::Null),
                _ => Value::from(n),
            };
            out.insert(opt.name.clone(), v);
            continue;
        }
        let Some(occurrences) = m.get_raw_occurrences(&opt.name) else {
            continue;
        };
        let mut per_occurrence = Vec::new();
        for occ in occurrences {
            let raw: Vec<String> = occ.map(|s| s.to_string_lossy().into_owned()).collect();
            per_occurrence.push(occurrence_value(opt, raw)?);
        }
        let value = if opt.action == Action::Append {
            Value::Array(per_occurrence.into_iter().flatten().collect())
        } else {
            match per_occurrence.pop().flatten() {
                Some(v) => v,
                None => continue,
            }
        };
        out.insert(opt.name.clone(), value);
    }
    Ok(out)
}

/// The value of one occurrence (`None`: given without value and no const).
fn occurrence_value(opt: &OptionSpec, raw: Vec<String>) -> Result<Option<Value>> {
    let raw: Vec<String> = raw.into_iter().filter(|s| s != NO_VALUE).collect();
    for v in &raw {
        check_choice(opt, v)?;
    }
    let converted: Vec<Value> = raw
        .iter()
        .map(|v| convert_cli(opt, v))
        .collect::<Result<_>>()?;
    Ok(match opt.nargs {
        None => converted.into_iter().next(),
        Some(Nargs::Optional) => match converted.into_iter().next() {
            Some(v) => Some(v),
            None => opt.constant.clone().filter(|c| !c.is_null()),
        },
        Some(_) => Some(Value::Array(converted)),
    })
}

fn check_choice(opt: &OptionSpec, value: &str) -> Result<()> {
    if opt.choices.is_empty() || opt.choices.iter().any(|c| c == value) {
        return Ok(());
    }
    let choices: Vec<&str> = opt.choices.iter().map(String::as_str).collect();
    Err(SpecError::new(
        ErrorClass::InvalidChoice,
        format!(
            "argument --{}: invalid choice: '{value}' (choose from {})",
            opt.name,
            quoted_list(&choices)
        ),
    ))
}

/// `type: int|float` convert command-line values; other types keep the string.
pub fn convert_cli(opt: &OptionSpec, value: &str) -> Result<Value> {
    match opt.type_name.as_deref() {
        Some("int") => parse_int(value).map(Value::from).ok_or_else(|| {
            SpecError::new(
                ErrorClass::InvalidValue,
                format!("argument --{}: invalid int value: '{value}'", opt.name),
            )
        }),
        Some("float") => parse_float(value)
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| {
                SpecError::new(
                    ErrorClass::InvalidValue,
                    format!("argument --{}: invalid float value: '{value}'", opt.name),
                )
            }),
        _ => Ok(Value::String(value.to_string())),
    }
}

/// Python's `int()` of a string: surrounding whitespace, a sign, digits and
/// single underscores between digits.
pub fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    digits
        .replace('_', "")
        .parse::<i64>()
        .ok()
        .map(|n| sign * n)
}

/// Python's `float()` of a string (finite values, `inf`/`nan` refused).
fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_'));
    if !ok {
        return None;
    }
    t.replace('_', "")
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_int() {
        assert_eq!(parse_int(" 42 "), Some(42));
        assert_eq!(parse_int("-1_000"), Some(-1000));
        assert_eq!(parse_int("abc"), None);
        assert_eq!(parse_int(""), None);
        assert_eq!(parse_int("1.5"), None);
    }
}
