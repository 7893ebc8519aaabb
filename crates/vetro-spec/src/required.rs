//! `required`, `required_when` and `silent`, checked once every source is merged.

use crate::error::{ErrorClass, Result, SpecError};
use crate::sources::ParserValues;
use crate::tree::is_truthy;
use serde_json::Value;
use std::collections::HashSet;

/// The text generate-config writes for a required option without default.
pub const PLACEHOLDER: &str = "Required argument.";

/// Options named by the `silent` lists of every option that is set.
fn silenced(parsers: &[(&str, &ParserValues)]) -> HashSet<String> {
    let mut out = HashSet::new();
    for (_, p) in parsers {
        for opt in p.spec.all_options() {
            if opt.silent.is_empty() {
                continue;
            }
            let set = match p.value(opt) {
                None => false,
                Some(Value::Bool(false)) => false,
                Some(_) => true,
            };
            if set {
                out.extend(opt.silent.iter().cloned());
            }
        }
    }
    out
}

/// The missing options of every parser, reported together.
pub fn check(parsers: &[(&str, &ParserValues)]) -> Result<()> {
    let silent = silenced(parsers);
    let mut missing: Vec<(String, Vec<String>)> = Vec::new();
    for (label, p) in parsers {
        let mut names = Vec::new();
        for opt in p.spec.all_options() {
            if silent.contains(&opt.name) {
                continue;
            }
            let value = p.value(opt);
            let truthy = value.as_ref().is_some_and(is_truthy);
            let placeholder = value
                .as_ref()
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with(PLACEHOLDER));
            let conditional = opt.required_when.as_ref().is_some_and(|c| {
                !truthy && p.value_by_name(&c.option) == Some(Value::String(c.value.clone()))
            });
            if (opt.required && !truthy) || placeholder || conditional {
                names.push(opt.name.clone());
            }
        }
        if !names.is_empty() {
            missing.push((label.to_string(), names));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let mut msg = String::from("Required options are not set:");
    for (label, names) in &missing {
        let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        msg.push_str(&format!("\n * [{label}]: {}", quoted.join(", ")));
    }
    Err(SpecError::new(ErrorClass::MissingRequired, msg))
}
