//! argparse-style help text of a command or subcommand: one section per
//! group (`Title:`), option lines starting with two spaces, wrapped help text
//! indented further.

use crate::model::{Action, CommandSpec, OptionSpec, ParserSpec};
use crate::tree::{is_truthy, py_str};
use std::collections::HashSet;
use std::fmt::Write;

const HELP_COLUMN: usize = 30;
const WIDTH: usize = 100;

/// Extra "allowed values" of an option (e.g. the files a YamlFile may name).
pub type AllowedValues<'a> = &'a dyn Fn(&ParserSpec, &OptionSpec) -> Vec<String>;

/// Help of the command-level parser, listing the subcommands.
pub fn command_help(prog: &str, spec: &CommandSpec, allowed: AllowedValues) -> String {
    let mut out = String::new();
    let names: Vec<&str> = spec.subcommands.iter().map(|s| s.name.as_str()).collect();
    let _ = writeln!(
        out,
        "usage: {prog} [-h] [options] {{{}}} ...",
        names.join(",")
    );
    out.push('\n');
    out.push_str("positional arguments:\n");
    let _ = writeln!(out, "  {{{}}}", names.join(","));
    for sub in &spec.subcommands {
        push_entry(&mut out, &format!("    {}", sub.name), &sub.help);
    }
    out.push('\n');
    push_groups(&mut out, &spec.main, allowed);
    out
}

/// Help of one subcommand parser.
pub fn subcommand_help(prog: &str, parser: &ParserSpec, allowed: AllowedValues) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "usage: {prog} {} [-h] [options]", parser.name);
    out.push('\n');
    let about = if parser.description.is_empty() {
        &parser.help
    } else {
        &parser.description
    };
    for line in about.lines() {
        // Indented so that no description line can look like a group title.
        let _ = writeln!(out, "  {line}");
    }
    if !about.is_empty() {
        out.push('\n');
    }
    push_groups(&mut out, parser, allowed);
    out
}

fn push_groups(out: &mut String, parser: &ParserSpec, allowed: AllowedValues) {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut shorts: HashSet<char> = HashSet::new();
    out.push_str("options:\n");
    let help_short = !parser.all_options().iter().any(|o| o.short == Some('h'));
    push_entry(
        out,
        if help_short {
            "  -h, --help"
        } else {
            "  --help"
        },
        "show this help message and exit",
    );
    let mut generic = String::new();
    for opt in &parser.options {
        if seen.insert(opt.name.as_str()) {
            push_option(&mut generic, parser, opt, &mut shorts, allowed);
        }
    }
    out.push_str(&generic);
    out.push('\n');
    let mut sections = String::new();
    for group in &parser.groups {
        let mut body = String::new();
        for opt in &group.options {
            if seen.insert(opt.name.as_str()) {
                push_option(&mut body, parser, opt, &mut shorts, allowed);
            }
        }
        if !body.is_empty() {
            let _ = writeln!(sections, "{}:", group.title);
            sections.push_str(&body);
            sections.push('\n');
        }
    }
    out.push_str(&sections);
}

fn push_option(
    out: &mut String,
    parser: &ParserSpec,
    opt: &OptionSpec,
    shorts: &mut HashSet<char>,
    allowed: AllowedValues,
) {
    let metavar = opt
        .metavar
        .clone()
        .unwrap_or_else(|| opt.name.to_uppercase());
    let value = if opt.action.is_flag() {
        String::new()
    } else {
        format!(" {metavar}")
    };
    let mut head = String::from("  ");
    if let Some(c) = opt.short.filter(|c| shorts.insert(*c)) {
        let _ = write!(head, "-{c}{value}, ");
    }
    let _ = write!(head, "--{}{value}", opt.name);
    push_entry(out, &head, &describe(parser, opt, allowed));
}

/// The help text with argparse's appended notes.
fn describe(parser: &ParserSpec, opt: &OptionSpec, allowed: AllowedValues) -> String {
    let mut text = opt.help.trim_end().to_string();
    let mut notes = Vec::new();
    if let Some(d) = opt.default.as_ref().filter(|d| is_truthy(d)) {
        if opt.action != Action::StoreTrue {
            notes.push(format!("Default value: '{}'.", py_str(d)));
        }
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
    if let Some(cond) = &opt.required_when {
        notes.push(format!(
            "Required when '{}' is '{}'.",
            cond.option, cond.value
        ));
    }
    let values = if opt.choices.is_empty() {
        allowed(parser, opt)
    } else {
        opt.choices.clone()
    };
    if !values.is_empty() {
        notes.push(format!("Allowed values: [{}].", values.join(", ")));
    }
    for n in notes {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&n);
    }
    text
}

/// One entry: the head, then the text wrapped at [`HELP_COLUMN`].
fn push_entry(out: &mut String, head: &str, text: &str) {
    let lines = wrap(text, WIDTH.saturating_sub(HELP_COLUMN));
    let pad = " ".repeat(HELP_COLUMN);
    let mut rest = lines.iter();
    if head.len() + 2 <= HELP_COLUMN {
        match rest.next() {
            Some(first) => {
                let _ = writeln!(out, "{head:<HELP_COLUMN$}{first}");
            }
            None => {
                let _ = writeln!(out, "{head}");
            }
        }
    } else {
        let _ = writeln!(out, "{head}");
    }
    for line in rest {
        let _ = writeln!(out, "{pad}{line}");
    }
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for para in text.lines() {
        let mut cur = String::new();
        for word in para.split_whitespace() {
            if !cur.is_empty() && cur.len() + 1 + word.len() > width {
                lines.push(std::mem::take(&mut cur));
            }
            if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        if !cur.is_empty() {
            lines.push(cur);
        }
    }
    lines
}
