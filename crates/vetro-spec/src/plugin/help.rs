//! `vetro ir NAME --help`: the plugin's groups and options with their help
//! text kept line by line (as InfraRed's raw-text formatter does), followed by
//! the default, the requirement notes and the allowed values.

use super::convert::{available_yamls, file_name_choices};
use super::Plugin;
use crate::model::OptionSpec;
use crate::tree::{py_repr, py_str};
use serde_json::Value;
use std::fmt::Write;

const HELP_COLUMN: usize = 26;
const LISTYAMLS: &str = "__LISTYAMLS__";

fn quoted_list(items: &[String]) -> String {
    py_repr(&Value::Array(
        items.iter().cloned().map(Value::String).collect(),
    ))
}

/// The values an option accepts, when the spec (or its lookup folder) fixes them.
pub fn allowed_values(plugin: &Plugin, opt: &OptionSpec) -> Vec<String> {
    if !opt.choices.is_empty() {
        return opt.choices.clone();
    }
    match (&opt.type_name, &opt.plugin.lookup_dir) {
        (Some(t), Some(dir)) if t == "ListOfFileNames" => file_name_choices(&plugin.dir, dir),
        _ => Vec::new(),
    }
}

/// An option's help text with InfraRed's notes appended.
pub fn option_help(plugin: &Plugin, opt: &OptionSpec) -> String {
    let allowed = allowed_values(plugin, opt);
    let mut text = opt.help.trim_end().to_string();
    if allowed.is_empty() && text.contains(LISTYAMLS) {
        let names = available_yamls(&plugin.dir, &opt.name);
        text = text.replace(
            LISTYAMLS,
            &format!("Available values: {}", quoted_list(&names)),
        );
    }
    let mut notes = Vec::new();
    if let Some(d) = opt.default.as_ref().filter(|d| !d.is_null()) {
        notes.push(format!("Default value: '{}'.", py_str(d)));
    }
    if let Some(n) = opt.plugin.length {
        notes.push(format!("Maximum variable length: '{n}'."));
    }
    if let Some(n) = opt.plugin.minimum {
        notes.push(format!("Minimum value: '{n}'."));
    }
    if let Some(n) = opt.plugin.maximum {
        notes.push(format!("Maximum value: '{n}'."));
    }
    if !opt.silent.is_empty() {
        notes.push(format!(
            "When this option is set, these options are not required: {}.",
            opt.silent.join(", ")
        ));
    }
    if opt.required {
        notes.push("This argument is required.".to_string());
    }
    for cond in &opt.plugin.required_when {
        notes.push(format!("Required when: {}.", cond.text));
    }
    if let Some(old) = &opt.plugin.deprecates {
        notes.push(format!("Replaces the deprecated --{old}."));
    }
    if !allowed.is_empty() {
        notes.push(format!("Allowed values: {}.", quoted_list(&allowed)));
    }
    for n in notes {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&n);
    }
    text
}

fn option_head(opt: &OptionSpec) -> String {
    let takes_value = !opt.action.is_flag();
    let metavar = opt
        .metavar
        .clone()
        .unwrap_or_else(|| opt.name.to_uppercase());
    let value = if takes_value {
        format!(" {metavar}")
    } else {
        String::new()
    };
    let mut head = String::from("  ");
    if let Some(c) = opt.short {
        let _ = write!(head, "-{c}{value}, ");
    }
    let _ = write!(head, "--{}{value}", opt.name);
    head
}

/// One entry: the option strings, then the help lines at [`HELP_COLUMN`].
fn push_entry(out: &mut String, head: &str, text: &str) {
    let pad = " ".repeat(HELP_COLUMN);
    let mut lines = text.lines();
    if head.len() + 2 <= HELP_COLUMN {
        match lines.next() {
            Some(first) => {
                let _ = writeln!(out, "{head:<HELP_COLUMN$}{}", first.trim_end());
            }
            None => {
                let _ = writeln!(out, "{head}");
            }
        }
    } else {
        let _ = writeln!(out, "{head}");
    }
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}{line}");
        }
    }
}

/// The whole help text of `vetro ir NAME`.
pub fn plugin_help(prog: &str, plugin: &Plugin) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "usage: {prog} [-h] [options]\n");
    for line in plugin.description.trim_end().lines() {
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out.push('\n');
    out.push_str("options:\n");
    push_entry(&mut out, "  -h, --help", "show this help message and exit");
    for opt in &plugin.parser.options {
        push_entry(&mut out, &option_head(opt), &option_help(plugin, opt));
    }
    for group in &plugin.parser.groups {
        out.push('\n');
        let _ = writeln!(out, "{}:", group.title);
        for opt in &group.options {
            push_entry(&mut out, &option_head(opt), &option_help(plugin, opt));
        }
    }
    out
}
