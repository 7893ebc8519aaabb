//! Answers files (`--from-file`, `--generate-answers-file`): an INI file with
//! one section named after the plugin, one `option = value` line per option.
//!
//! Reading follows InfraRed: `True`/`False` become booleans, `[...]` a list,
//! `$VAR`/`${VAR}` are replaced from the environment (`$$` is a `$`); integer
//! options (`int`, `count`) are converted. Everything else stays text, so a
//! number written from a default comes back as a string.

use super::help::option_help;
use super::Plugin;
use crate::cli::parse_int;
use crate::error::{ErrorClass, Result, SpecError};
use crate::ini::{convert_ini_value, Ini};
use crate::model::Action;
use crate::tree::py_str;
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

/// The values an answers file gives to the plugin's options.
pub fn read_answers(
    path: &Path,
    plugin: &Plugin,
    env: &HashMap<String, String>,
) -> Result<IndexMap<String, Value>> {
    let ini = Ini::read(path, true)?;
    let shown = path.display();
    let mut out = IndexMap::new();
    for section in ["DEFAULT", plugin.name.as_str()] {
        let Some(entries) = ini.sections.get(section) else {
            continue;
        };
        for (key, raw) in entries {
            let Some(opt) = plugin.parser.option(key) else {
                return Err(SpecError::new(
                    ErrorClass::UnknownOption,
                    format!(
                        "{shown}: [{section}] '{key}' is not an option of plugin '{}'",
                        plugin.name
                    ),
                ));
            };
            if matches!(opt.action, Action::ReadConfig | Action::GenerateConfig) {
                continue;
            }
            let Some(raw) = raw else {
                return Err(SpecError::new(
                    ErrorClass::InvalidValue,
                    format!("{shown}: [{section}] '{key}' has no value (write '{key} = VALUE')"),
                ));
            };
            let value = substitute_value(convert_ini_value(raw), env).map_err(|m| {
                SpecError::new(ErrorClass::InvalidValue, format!("{shown}: '{key}': {m}"))
            })?;
            let value = if opt.is_integer() {
                let n = match &value {
                    Value::String(s) => parse_int(s),
                    Value::Bool(b) => Some(i64::from(*b)),
                    Value::Number(n) => n.as_i64(),
                    _ => None,
                };
                Value::from(n.ok_or_else(|| {
                    SpecError::new(
                        ErrorClass::InvalidValue,
                        format!("{shown}: '{key} = {raw}': option '{key}' needs an integer"),
                    )
                })?)
            } else {
                value
            };
            out.insert(key.clone(), value);
        }
    }
    Ok(out)
}

fn substitute_value(v: Value, env: &HashMap<String, String>) -> std::result::Result<Value, String> {
    match v {
        Value::String(s) => substitute(&s, env).map(Value::String),
        Value::Array(items) => items
            .into_iter()
            .map(|i| substitute_value(i, env))
            .collect::<std::result::Result<_, _>>()
            .map(Value::Array),
        other => Ok(other),
    }
}

/// Python's `string.Template(text).substitute(env)`.
pub fn substitute(
    text: &str,
    env: &HashMap<String, String>,
) -> std::result::Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let ident_len = |s: &str| {
            s.char_indices()
                .take_while(|(k, c)| {
                    c.is_ascii_alphanumeric() && !(*k == 0 && c.is_ascii_digit()) || *c == '_'
                })
                .count()
        };
        if let Some(r) = after.strip_prefix('$') {
            out.push('$');
            rest = r;
        } else if let Some(body) = after.strip_prefix('{') {
            let n = ident_len(body);
            if n == 0 || !body[n..].starts_with('}') {
                return Err(format!("invalid placeholder in '{text}'"));
            }
            out.push_str(lookup(&body[..n], env)?);
            rest = &body[n + 1..];
        } else {
            let n = ident_len(after);
            if n == 0 {
                return Err(format!(
                    "invalid placeholder in '{text}' (write $$ for a '$')"
                ));
            }
            out.push_str(lookup(&after[..n], env)?);
            rest = &after[n..];
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn lookup<'a>(
    name: &str,
    env: &'a HashMap<String, String>,
) -> std::result::Result<&'a str, String> {
    env.get(name)
        .map(String::as_str)
        .ok_or_else(|| format!("the environment variable {name} is not defined"))
}

/// Write the answers file: every option's help as comments, then its value
/// (given on the command line, else its default); a required option without
/// either is written commented out with a placeholder.
pub fn write_answers(
    path: &Path,
    plugin: &Plugin,
    cli: &IndexMap<String, Value>,
    defaults: &IndexMap<String, Value>,
) -> Result<()> {
    let mut text = format!("[{}]\n", plugin.name);
    let options = plugin.parser.all_options();
    // A deprecated option is written only when given: its default next to the
    // option replacing it would make the file unreadable.
    let replaced = |name: &str| {
        options
            .iter()
            .any(|o| o.plugin.deprecates.as_deref() == Some(name))
    };
    for opt in &options {
        if matches!(opt.action, Action::ReadConfig | Action::GenerateConfig)
            || (replaced(&opt.name) && !cli.contains_key(&opt.name))
        {
            continue;
        }
        let value = cli.get(&opt.name).or_else(|| defaults.get(&opt.name));
        let line = match value {
            Some(v) => format!("{} = {}", opt.name, py_str(v).replace('\n', "\n\t")),
            None if opt.required => format!(
                "# {} = Required argument. Edit with one of the allowed values OR override with CLI: --{}=<option>",
                opt.name, opt.name
            ),
            None => continue,
        };
        for help_line in option_help(plugin, opt).lines() {
            let _ = writeln!(text, "# {}", help_line.trim_end());
        }
        let _ = writeln!(text, "{line}");
    }
    text.push('\n');
    std::fs::write(path, text).map_err(|e| {
        SpecError::new(
            ErrorClass::Io,
            format!("cannot write the answers file {}: {e}", path.display()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_substitution() {
        let env: HashMap<String, String> = [("HOME".to_string(), "/h".to_string())].into();
        assert_eq!(
            substitute("$HOME/x ${HOME}y $$z", &env).unwrap(),
            "/h/x /hy $z"
        );
        assert!(substitute("$NOPE", &env).is_err());
        assert!(substitute("a $ b", &env).is_err());
        assert!(substitute("${HOME", &env).is_err());
    }
}
