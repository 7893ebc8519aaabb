//! generate-config: an INI section with every option's spec default.

use crate::error::Result;
use crate::ini::{write_generated, GenLine};
use crate::model::{Action, ParserSpec};
use serde_json::Value;
use std::path::Path;

/// Write (or update) `path` with the section of subcommand `parser`.
pub fn generate(path: &Path, parser: &ParserSpec) -> Result<()> {
    let mut lines = Vec::new();
    for opt in parser.all_options() {
        if !opt.help.trim().is_empty() {
            lines.push(GenLine::Comment(opt.help.trim_end().to_string()));
        }
        let default = match (&opt.default, opt.action) {
            (Some(Value::Null), _) => None,
            (Some(v), _) => Some(v.clone()),
            (None, Action::StoreTrue) => Some(Value::Bool(false)),
            _ => None,
        };
        match default {
            Some(v) => lines.push(GenLine::Entry(opt.name.clone(), ini_text(&v))),
            None if opt.required => lines.push(GenLine::Entry(
                opt.name.clone(),
                format!(
                    "{} Edit with one of the allowed values OR override with CLI: --{}=<option>",
                    crate::required::PLACEHOLDER,
                    opt.name
                ),
            )),
            None => lines.push(GenLine::Comment(format!("{} = ", opt.name))),
        }
    }
    write_generated(path, &parser.name, &lines)
}

fn ini_text(v: &Value) -> String {
    crate::tree::py_str(v)
}
