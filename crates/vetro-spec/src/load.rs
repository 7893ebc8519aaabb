//! Finding, reading and merging the `.spec` files of a command, then
//! validating the merged document into a [`CommandSpec`].

use crate::check::check_parser;
use crate::error::{ErrorClass, Result, SpecError};
use crate::model::{Action, CommandSpec, Condition, Group, Nargs, OptionSpec, ParserSpec};
use crate::yamlfile::load_yaml_nodes;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use vetro_diag::{SourceMap, Span};
use vetro_yaml::{to_json, Mapping, Node, NodeKind};

const TOP_KEYS: &[&str] = &[
    "options",
    "groups",
    "shared_groups",
    "include_groups",
    "subparsers",
    "help",
    "description",
];
const PARSER_KEYS: &[&str] = &[
    "help",
    "description",
    "formatter_class",
    "options",
    "groups",
    "include_groups",
];
const GROUP_KEYS: &[&str] = &["title", "options", "description"];
const OPTION_KEYS: &[&str] = &[
    "short",
    "help",
    "required",
    "default",
    "choices",
    "action",
    "nargs",
    "const",
    "type",
    "silent",
    "required_when",
    "metavar",
    "nested",
];

/// The spec files read for `command`: every `*spec` file directly in the
/// settings root, then every `*spec` file below `root/command/` (a folder's
/// files before its sub-folders, names sorted).
pub fn spec_files(root: &Path, command: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    files.extend(sorted_entries(root).into_iter().filter(|p| is_spec(p)));
    // The root's own files are read above: a link back up to it is not followed.
    let mut seen: HashSet<PathBuf> = root.canonicalize().into_iter().collect();
    walk(&root.join(command), &mut files, &mut seen);
    files
}

fn is_spec(path: &Path) -> bool {
    path.is_file()
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("spec"))
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(_) => Vec::new(),
    };
    entries.sort();
    entries
}

/// Folders are visited once each (by their real path), so symbolic links
/// that lead back up the tree cannot make the walk loop.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, seen: &mut HashSet<PathBuf>) {
    let Ok(real) = dir.canonicalize() else {
        return;
    };
    if !seen.insert(real) {
        return;
    }
    let entries = sorted_entries(dir);
    out.extend(entries.iter().filter(|p| is_spec(p)).cloned());
    for sub in entries.iter().filter(|p| p.is_dir()) {
        walk(sub, out, seen);
    }
}

/// Read, merge and validate every spec file of `command`.
pub fn load_command(root: &Path, command: &str, sources: &mut SourceMap) -> Result<CommandSpec> {
    let mut merged: Option<Node> = None;
    for file in spec_files(root, command) {
        let doc = load_yaml_nodes(&file, sources, ErrorClass::SpecError)?;
        let doc = match doc {
            Some(d) if !d.is_null() => d,
            _ => continue,
        };
        if doc.as_map().is_none() {
            return Err(spec_err(
                &doc,
                format!("{}: a spec file must hold a mapping", file.display()),
            ));
        }
        merged = Some(match merged {
            None => doc,
            Some(base) => merge_nodes(base, doc),
        });
    }
    let empty = Node::new(NodeKind::Map(Mapping::new()), Span::default());
    let spec = build_command(command, merged.as_ref().unwrap_or(&empty))?;
    check_parser(&spec.main, &format!("command '{command}'"))?;
    for sub in &spec.subcommands {
        check_parser(sub, &format!("subcommand '{}'", sub.name))?;
    }
    Ok(spec)
}

/// Deep merge of spec documents: mappings key by key, lists by appending the
/// later items not already present, anything else replaced by the later node.
pub fn merge_nodes(base: Node, over: Node) -> Node {
    match (base.kind, over.kind) {
        (NodeKind::Map(mut a), NodeKind::Map(b)) => {
            for (k, v) in b.entries {
                let key = k.scalar_text();
                match a.entries.iter().position(|(ak, _)| ak.scalar_text() == key) {
                    Some(i) => {
                        let old = a.entries.remove(i);
                        a.entries.insert(i, (old.0, merge_nodes(old.1, v)));
                    }
                    None => a.entries.push((k, v)),
                }
            }
            Node {
                kind: NodeKind::Map(a),
                ..base_shell(base.span, base.tag, base.style)
            }
        }
        (NodeKind::Seq(mut a), NodeKind::Seq(b)) => {
            for item in b {
                let j = to_json(&item);
                if !a.iter().any(|x| to_json(x) == j) {
                    a.push(item);
                }
            }
            Node {
                kind: NodeKind::Seq(a),
                ..base_shell(base.span, base.tag, base.style)
            }
        }
        (_, kind) => Node {
            kind,
            span: over.span,
            tag: over.tag,
            style: over.style,
        },
    }
}

fn base_shell(span: Span, tag: Option<Box<str>>, style: vetro_yaml::Style) -> Node {
    Node {
        kind: NodeKind::Null,
        span,
        tag,
        style,
    }
}

pub(crate) fn spec_err(node: &Node, msg: impl Into<String>) -> SpecError {
    SpecError::new(ErrorClass::SpecError, msg).with_span(node.span)
}

/// Refuses a key of `map` that is not in `allowed`, naming `what` the map is.
pub(crate) fn check_keys(map: &Mapping, allowed: &[&str], what: &str) -> Result<()> {
    for (k, _) in map.iter() {
        let key = k.scalar_text().unwrap_or_default();
        if !allowed.contains(&key.as_str()) {
            return Err(spec_err(
                k,
                format!(
                    "unknown key '{key}' in {what} (expected one of: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

pub(crate) fn as_map<'a>(node: &'a Node, what: &str) -> Result<Option<&'a Mapping>> {
    match &node.kind {
        NodeKind::Null => Ok(None),
        NodeKind::Map(m) => Ok(Some(m)),
        _ => Err(spec_err(
            node,
            format!("{what} must be a mapping, not a {}", node.type_name()),
        )),
    }
}

pub(crate) fn as_seq<'a>(node: &'a Node, what: &str) -> Result<&'a [Node]> {
    match &node.kind {
        NodeKind::Null => Ok(&[]),
        NodeKind::Seq(s) => Ok(s),
        _ => Err(spec_err(
            node,
            format!("{what} must be a list, not a {}", node.type_name()),
        )),
    }
}

pub(crate) fn text_of(node: &Node, what: &str) -> Result<String> {
    node.scalar_text()
        .ok_or_else(|| spec_err(node, format!("{what} must be a scalar")))
}

fn build_command(name: &str, doc: &Node) -> Result<CommandSpec> {
    let top = match as_map(doc, "a spec document")? {
        Some(m) => m,
        None => return Ok(CommandSpec::default()),
    };
    check_keys(top, TOP_KEYS, "the spec top level")?;
    let mut shared = Vec::new();
    if let Some(node) = top.get("shared_groups") {
        for g in as_seq(node, "shared_groups")? {
            shared.push(build_group(g)?);
        }
    }
    let main = build_parser(name, top, &shared)?;
    let mut subcommands = Vec::new();
    if let Some(node) = top.get("subparsers") {
        if let Some(subs) = as_map(node, "subparsers")? {
            for (k, v) in subs.iter() {
                let sub_name = text_of(k, "a subcommand name")?;
                let empty = Mapping::new();
                let body = as_map(v, "a subcommand")?.unwrap_or(&empty);
                check_keys(body, PARSER_KEYS, &format!("subcommand '{sub_name}'"))?;
                subcommands.push(build_parser(&sub_name, body, &shared)?);
            }
        }
    }
    Ok(CommandSpec {
        name: name.to_string(),
        main,
        subcommands,
    })
}

fn build_parser(name: &str, body: &Mapping, shared: &[Group]) -> Result<ParserSpec> {
    let mut parser = ParserSpec {
        name: name.to_string(),
        ..ParserSpec::default()
    };
    if let Some(h) = body.get("help") {
        parser.help = h.scalar_text().unwrap_or_default();
    }
    if let Some(d) = body.get("description") {
        parser.description = d.scalar_text().unwrap_or_default();
    }
    if let Some(node) = body.get("groups") {
        for g in as_seq(node, "groups")? {
            parser.groups.push(build_group(g)?);
        }
    }
    if let Some(node) = body.get("include_groups") {
        for item in as_seq(node, "include_groups")? {
            let title = text_of(item, "an included group title")?;
            let group = shared.iter().find(|g| g.title == title).ok_or_else(|| {
                let known: Vec<&str> = shared.iter().map(|g| g.title.as_str()).collect();
                spec_err(
                    item,
                    format!(
                        "include_groups of '{name}' names the unknown shared group '{title}' (known: {})",
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    ),
                )
            })?;
            parser.groups.push(group.clone());
        }
    }
    if let Some(node) = body.get("options") {
        parser.options = build_options(node)?;
    }
    Ok(parser)
}

fn build_group(node: &Node) -> Result<Group> {
    let map =
        as_map(node, "a group")?.ok_or_else(|| spec_err(node, "a group must not be empty"))?;
    check_keys(map, GROUP_KEYS, "a group")?;
    let title = map
        .get("title")
        .map(|t| text_of(t, "a group title"))
        .transpose()?
        .ok_or_else(|| spec_err(node, "a group needs a 'title'"))?;
    let options = match map.get("options") {
        Some(o) => build_options(o)?,
        None => Vec::new(),
    };
    Ok(Group { title, options })
}

fn build_options(node: &Node) -> Result<Vec<OptionSpec>> {
    let mut out = Vec::new();
    if let Some(map) = as_map(node, "options")? {
        for (k, v) in map.iter() {
            let name = text_of(k, "an option name")?;
            out.push(build_option(&name, k, v)?);
        }
    }
    Ok(out)
}

fn build_option(name: &str, key: &Node, node: &Node) -> Result<OptionSpec> {
    if name.is_empty() || name.starts_with('-') || name.contains(char::is_whitespace) {
        return Err(spec_err(key, format!("invalid option name '{name}'")));
    }
    let mut opt = OptionSpec {
        name: name.to_string(),
        short: None,
        help: String::new(),
        required: false,
        default: None,
        choices: Vec::new(),
        action: Action::Store,
        nargs: None,
        constant: None,
        type_name: None,
        silent: Vec::new(),
        required_when: None,
        metavar: None,
        span: key.span,
        plugin: Default::default(),
    };
    let empty = Mapping::new();
    let map = as_map(node, &format!("option '{name}'"))?.unwrap_or(&empty);
    check_keys(map, OPTION_KEYS, &format!("option '{name}'"))?;
    for (k, v) in map.iter() {
        let key = k.scalar_text().unwrap_or_default();
        match key.as_str() {
            "short" => {
                let s = text_of(v, "short")?;
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c != '-' => opt.short = Some(c),
                    _ => {
                        return Err(spec_err(
                            v,
                            format!("short of '{name}' must be one character, got '{s}'"),
                        ))
                    }
                }
            }
            "help" => opt.help = v.scalar_text().unwrap_or_default(),
            "required" => opt.required = truthy_node(v),
            "default" => opt.default = Some(to_json(v)),
            "choices" => {
                for c in as_seq(v, "choices")? {
                    opt.choices.push(text_of(c, "a choice")?);
                }
            }
            "action" => {
                let a = text_of(v, "action")?;
                opt.action = Action::parse(&a)
                    .ok_or_else(|| spec_err(v, format!("unknown action '{a}' of '{name}'")))?;
            }
            "nargs" => opt.nargs = Some(parse_nargs(v, name)?),
            "const" => opt.constant = Some(to_json(v)),
            "type" => opt.type_name = Some(text_of(v, "type")?),
            "silent" => {
                for s in as_seq(v, "silent")? {
                    opt.silent.push(text_of(s, "a silenced option name")?);
                }
            }
            "required_when" => opt.required_when = Some(parse_condition(v, name)?),
            "metavar" => opt.metavar = v.scalar_text(),
            _ => {}
        }
    }
    if opt.action.is_flag() && opt.nargs.is_some() {
        return Err(spec_err(
            node,
            format!("option '{name}': nargs cannot be combined with a flag action"),
        ));
    }
    Ok(opt)
}

pub(crate) fn truthy_node(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Null => false,
        NodeKind::Bool(b) => *b,
        NodeKind::Int(i) => *i != 0,
        NodeKind::Float(f) => *f != 0.0,
        NodeKind::Str(s) => !s.is_empty(),
        NodeKind::BigInt(_) => true,
        NodeKind::Seq(s) => !s.is_empty(),
        NodeKind::Map(m) => !m.is_empty(),
    }
}

pub(crate) fn parse_nargs(node: &Node, name: &str) -> Result<Nargs> {
    match &node.kind {
        NodeKind::Int(n) if *n >= 1 => Ok(Nargs::Exactly(*n as usize)),
        NodeKind::Str(s) => match s.as_str() {
            "?" => Ok(Nargs::Optional),
            "*" => Ok(Nargs::ZeroOrMore),
            "+" => Ok(Nargs::OneOrMore),
            other => match other.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(Nargs::Exactly(n)),
                _ => Err(spec_err(
                    node,
                    format!("invalid nargs '{other}' of '{name}'"),
                )),
            },
        },
        _ => Err(spec_err(node, format!("invalid nargs of '{name}'"))),
    }
}

fn parse_condition(node: &Node, name: &str) -> Result<Condition> {
    let text = node.as_str().ok_or_else(|| {
        spec_err(
            node,
            format!("required_when of '{name}' must be a string \"OPTION == VALUE\""),
        )
    })?;
    match text.split_once("==") {
        Some((a, b)) => Ok(Condition {
            option: a.trim().to_string(),
            value: b.trim().to_string(),
        }),
        None => Err(spec_err(
            node,
            format!("required_when of '{name}' must look like \"OPTION == VALUE\", got '{text}'"),
        )),
    }
}
