//! Value sources of one parser and their precedence:
//! command line > read-config INI > environment variable > spec default.

use crate::cli::{parse_int, CliValues};
use crate::error::{ErrorClass, Result, SpecError};
use crate::model::{OptionSpec, ParserSpec};
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::HashMap;

/// Where a value came from (for messages and the playbook runner).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    CommandLine,
    ConfigFile,
    Environment,
    Default,
}

/// The merged sources of one parser.
#[derive(Clone, Debug)]
pub struct ParserValues<'a> {
    pub spec: &'a ParserSpec,
    pub cli: CliValues,
    pub ini: IndexMap<String, Value>,
    pub env: IndexMap<String, Value>,
}

impl<'a> ParserValues<'a> {
    pub fn new(spec: &'a ParserSpec, cli: CliValues, env: IndexMap<String, Value>) -> Self {
        ParserValues {
            spec,
            cli,
            ini: IndexMap::new(),
            env,
        }
    }

    /// The value of an option and its source; `None` when no source sets it.
    pub fn value_of(&self, opt: &OptionSpec) -> Option<(Value, Source)> {
        if let Some(v) = self.cli.get(&opt.name) {
            return Some((v.clone(), Source::CommandLine));
        }
        if let Some(v) = self.ini.get(&opt.name) {
            return Some((v.clone(), Source::ConfigFile));
        }
        if let Some(v) = self.env.get(&opt.name) {
            return Some((v.clone(), Source::Environment));
        }
        opt.effective_default().map(|v| (v, Source::Default))
    }

    pub fn value(&self, opt: &OptionSpec) -> Option<Value> {
        self.value_of(opt).map(|(v, _)| v)
    }

    /// The value of the option called `name` in this parser.
    pub fn value_by_name(&self, name: &str) -> Option<Value> {
        self.spec.option(name).and_then(|o| self.value(o))
    }
}

/// Environment values of a parser's options: `some-name` reads `SOME_NAME`;
/// integer options (`type: int`, `action: count`) are converted.
pub fn env_values(
    parser: &ParserSpec,
    env: &HashMap<String, String>,
) -> Result<IndexMap<String, Value>> {
    let mut out = IndexMap::new();
    for opt in parser.all_options() {
        let var = opt.env_name();
        let Some(text) = env.get(&var) else { continue };
        let value = if opt.is_integer() {
            Value::from(parse_int(text).ok_or_else(|| {
                SpecError::new(
                    ErrorClass::InvalidValue,
                    format!(
                        "environment variable {var}='{text}': option '{}' needs an integer",
                        opt.name
                    ),
                )
            })?)
        } else {
            Value::String(text.clone())
        };
        out.insert(opt.name.clone(), value);
    }
    Ok(out)
}

/// INI values for a parser: the keys that name its options, integer options
/// converted.
pub fn ini_values(
    parser: &ParserSpec,
    section: IndexMap<String, Value>,
    file: &str,
) -> Result<IndexMap<String, Value>> {
    let mut out = IndexMap::new();
    for (key, value) in section {
        let Some(opt) = parser.option(&key) else {
            continue;
        };
        let value = if opt.is_integer() {
            let n = match &value {
                Value::String(s) => parse_int(s),
                Value::Bool(b) => Some(i64::from(*b)),
                _ => None,
            };
            Value::from(n.ok_or_else(|| {
                SpecError::new(
                    ErrorClass::InvalidValue,
                    format!("{file}: '{key} = {value}': option '{key}' needs an integer"),
                )
            })?)
        } else {
            value
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// Options defined in both parsers share what the command line (and an INI
/// file) gives either of them, unless the other got its own.
pub fn share_values(main: &mut ParserValues, sub: &mut ParserValues) {
    let shared: Vec<String> = main
        .spec
        .all_options()
        .iter()
        .filter(|o| sub.spec.option(&o.name).is_some())
        .map(|o| o.name.clone())
        .collect();
    for name in &shared {
        match (main.cli.get(name).cloned(), sub.cli.get(name).cloned()) {
            (None, Some(v)) => {
                main.cli.insert(name.clone(), v);
            }
            (Some(v), None) => {
                sub.cli.insert(name.clone(), v);
            }
            _ => {}
        }
    }
    for name in &shared {
        if main.cli.contains_key(name) {
            continue;
        }
        if let Some(v) = sub.ini.get(name).cloned() {
            main.ini.entry(name.clone()).or_insert(v);
        }
    }
}
