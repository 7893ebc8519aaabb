//! Writing nodes back as YAML (block style, insertion order) or JSON.

use crate::node::{Node, NodeKind};
use crate::resolve::{resolve_plain, Resolved, YamlVersion};
use std::fmt::Write;
use vetro_pycompat::repr::float_repr;

/// The node as a YAML document that loads back to the same values under both
/// schemas. Keys keep their order; strings are quoted only when needed.
pub fn to_yaml_string(node: &Node) -> String {
    let mut out = String::new();
    match &node.kind {
        NodeKind::Seq(items) if !items.is_empty() => write_seq(items, 0, &mut out),
        NodeKind::Map(m) if !m.is_empty() => write_map(node, 0, &mut out),
        _ => {
            out.push_str(&flow(node));
            out.push('\n');
        }
    }
    out
}

fn is_block(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Seq(items) => !items.is_empty(),
        NodeKind::Map(m) => !m.is_empty(),
        _ => false,
    }
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn write_map(node: &Node, indent: usize, out: &mut String) {
    let Some(map) = node.as_map() else { return };
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        let text = flow(key);
        if key.is_scalar() && fits_implicit_key(&text) {
            out.push_str(&text);
        } else {
            out.push_str("? ");
            out.push_str(&text);
            out.push('\n');
            pad(out, indent);
        }
        out.push(':');
        write_value(value, indent, out);
    }
}

fn write_value(value: &Node, indent: usize, out: &mut String) {
    match &value.kind {
        NodeKind::Map(_) if is_block(value) => {
            out.push('\n');
            pad(out, indent + 2);
            write_map(value, indent + 2, out);
        }
        NodeKind::Seq(items) if is_block(value) => {
            out.push('\n');
            pad(out, indent);
            write_seq(items, indent, out);
        }
        _ => {
            out.push(' ');
            out.push_str(&flow(value));
            out.push('\n');
        }
    }
}

fn write_seq(items: &[Node], indent: usize, out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        out.push_str("- ");
        match &item.kind {
            NodeKind::Map(_) if is_block(item) => write_map(item, indent + 2, out),
            NodeKind::Seq(inner) if is_block(item) => write_seq(inner, indent + 2, out),
            _ => {
                out.push_str(&flow(item));
                out.push('\n');
            }
        }
    }
}

/// Whether a key's text may be written as an implicit key (`key: value`):
/// YAML limits those to 1024 characters, longer keys need `? key`.
fn fits_implicit_key(text: &str) -> bool {
    text.chars().count() < 1000
}

/// A node in flow style (one line).
fn flow(node: &Node) -> String {
    match &node.kind {
        NodeKind::Seq(items) => {
            let parts: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", parts.join(", "))
        }
        NodeKind::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| {
                    let key = flow(k);
                    if k.is_scalar() && fits_implicit_key(&key) {
                        format!("{key}: {}", flow(v))
                    } else {
                        format!("? {key}: {}", flow(v))
                    }
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        _ => scalar(node),
    }
}

fn scalar(node: &Node) -> String {
    match &node.kind {
        NodeKind::Null => "null".into(),
        NodeKind::Bool(b) => b.to_string(),
        NodeKind::Int(i) => i.to_string(),
        NodeKind::BigInt(s) => s.clone(),
        NodeKind::Float(f) => yaml_float(*f),
        NodeKind::Str(s) => string(s),
        NodeKind::Seq(_) | NodeKind::Map(_) => flow(node),
    }
}

fn yaml_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    let repr = float_repr(f);
    // YAML 1.1 floats need a dot in the mantissa: `1e+20` is written `1.0e+20`.
    match repr.split_once('e') {
        Some((mantissa, exp)) if !mantissa.contains('.') => format!("{mantissa}.0e{exp}"),
        _ => repr,
    }
}

/// A string as a plain scalar when that reads back as the same string, else double-quoted.
fn string(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) || first.is_whitespace() {
        return false;
    }
    if s.ends_with(char::is_whitespace) || s.ends_with(':') || s == "<<" {
        return false;
    }
    // In flow context a `-` or `?` after a space and before `,`/`]`/`}`
    // reads as an indicator (`[a -]` does not load).
    if s.ends_with(" -") || s.ends_with(" ?") {
        return false;
    }
    // At the start of a line `...` ends the document (`---` is already
    // refused by its first character).
    if s.starts_with("...") {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.contains(['\t', ',', '[', ']', '{', '}']) {
        return false;
    }
    if s.chars()
        .any(|c| c.is_control() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'))
    {
        return false;
    }
    [YamlVersion::V1_1, YamlVersion::V1_2]
        .iter()
        .all(|&v| resolve_plain(s, v) == Resolved::Str)
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_that_reads_as_a_document_marker_is_quoted() {
        assert_eq!(string("..."), "\"...\"");
        assert_eq!(string("... and more"), "\"... and more\"");
        assert_eq!(string("a..."), "a...");
    }

    #[test]
    fn a_string_ending_in_an_indicator_after_a_space_loads_back_in_flow_context() {
        // Found by the yaml_load fuzz target: `? [a -]` did not load.
        let mut sources = vetro_diag::SourceMap::new();
        let text = "? - a -\n  - b ?\n: 1\n";
        let file = sources.add("in", text);
        let doc = crate::load_str(&sources, file, &Default::default())
            .unwrap()
            .remove(0);
        let emitted = to_yaml_string(&doc);
        let again = sources.add("out", emitted.clone());
        let back = crate::load_str(&sources, again, &Default::default());
        assert!(back.is_ok(), "{emitted}");
        assert_eq!(string("a -"), "\"a -\"");
        assert_eq!(string("a-"), "a-");
    }

    #[test]
    fn floats_are_written_as_python_reprs_with_a_yaml_mantissa() {
        assert_eq!(yaml_float(1.5), "1.5");
        assert_eq!(yaml_float(1.0), "1.0");
        assert_eq!(yaml_float(1e16), "1.0e+16");
        assert_eq!(yaml_float(1.5e-5), "1.5e-05");
        assert_eq!(yaml_float(0.0001), "0.0001");
        assert_eq!(yaml_float(123456789.125), "123456789.125");
        assert_eq!(yaml_float(1e20), "1.0e+20");
    }

    #[test]
    fn strings_that_look_like_other_types_are_quoted() {
        for s in [
            "yes", "1", "1.5", "null", "", " a", "a: b", "- x", "<<", "0o17", "1e3",
        ] {
            assert!(string(s).starts_with('"'), "{s}");
        }
        assert_eq!(string("hello world"), "hello world");
    }
}
