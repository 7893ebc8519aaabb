//! Reading a plugin's `plugin.spec` into a [`Plugin`]: the `config` (or the
//! older top-level `plugin_type`), the one subparser with its groups, the
//! included shared groups and its options. Every problem carries the
//! file:line:column it comes from.

use super::shared::builtin_groups;
use super::Plugin;
use crate::check::check_parser;
use crate::error::{ErrorClass, Result, SpecError};
use crate::load::{as_map, as_seq, check_keys, parse_nargs, spec_err, text_of, truthy_node};
use crate::model::{Action, Group, OptionSpec, ParserSpec};
use crate::when::WhenExpr;
use crate::yamlfile::load_yaml_nodes;
use std::path::Path;
use vetro_diag::SourceMap;
use vetro_yaml::{to_json, Mapping, Node};

/// The plugin types InfraRed knows.
pub const PLUGIN_TYPES: &[&str] = &["provision", "install", "test", "other"];

/// Option types: InfraRed's complex types and the builtins that convert.
pub const OPTION_TYPES: &[&str] = &[
    "Value",
    "Bool",
    "Flag",
    "Int",
    "ListValue",
    "KeyValueList",
    "Dict",
    "NestedDict",
    "NestedList",
    "IniType",
    "FileValue",
    "VarFile",
    "ListOfVarFiles",
    "VarDir",
    "ListOfTopologyFiles",
    "ListOfFileNames",
    "AdditionalArgs",
    "Inventory",
    "str",
    "int",
    "float",
];

const TOP_WITH_CONFIG: &[&str] = &["config", "subparsers", "description"];
const TOP_WITHOUT_CONFIG: &[&str] = &[
    "plugin_type",
    "entry_point",
    "roles_path",
    "subparsers",
    "description",
];
const CONFIG_KEYS: &[&str] = &["plugin_type", "entry_point", "roles_path"];
const PARSER_KEYS: &[&str] = &["description", "help", "include_groups", "groups", "options"];
const GROUP_KEYS: &[&str] = &["title", "options", "description"];
const OPTION_KEYS: &[&str] = &[
    "type",
    "help",
    "default",
    "required",
    "choices",
    "action",
    "nargs",
    "const",
    "metavar",
    "short",
    "silent",
    "required_when",
    "ansible_variable",
    "deprecates",
    "lookup_dir",
    "length",
    "minimum",
    "maximum",
];

fn scalar(map: &Mapping, key: &str, what: &str) -> Result<Option<String>> {
    map.get(key).map(|n| text_of(n, what)).transpose()
}

/// Read and check `DIR/plugin.spec`.
pub fn load_plugin(dir: &Path, sources: &mut SourceMap) -> Result<Plugin> {
    if !dir.is_dir() {
        return Err(SpecError::new(
            ErrorClass::Io,
            format!("{}: not a plugin directory", dir.display()),
        ));
    }
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let spec_file = dir.join("plugin.spec");
    if !spec_file.is_file() {
        return Err(SpecError::new(
            ErrorClass::FileNotFound,
            format!("{}: no plugin.spec in the plugin directory", dir.display()),
        ));
    }
    let doc = load_yaml_nodes(&spec_file, sources, ErrorClass::SpecError)?;
    let Some(top) = doc.as_ref().and_then(Node::as_map) else {
        let msg = format!("{}: a plugin.spec must hold a mapping", spec_file.display());
        return Err(match &doc {
            Some(node) => spec_err(node, msg),
            None => SpecError::new(ErrorClass::SpecError, msg),
        });
    };
    let doc = doc.as_ref().expect("checked above");
    let mut warnings = Vec::new();
    let config = match top.get("config") {
        Some(node) => {
            check_keys(top, TOP_WITH_CONFIG, "the plugin.spec top level")?;
            as_map(node, "config")?.ok_or_else(|| spec_err(node, "config must not be empty"))?
        }
        None => {
            check_keys(top, TOP_WITHOUT_CONFIG, "the plugin.spec top level")?;
            top
        }
    };
    if top.get("config").is_some() {
        check_keys(config, CONFIG_KEYS, "config")?;
    }
    let type_node = config.get("plugin_type").ok_or_else(|| {
        spec_err(
            top.get("config").unwrap_or(doc),
            "a plugin.spec needs 'plugin_type' (under 'config')",
        )
    })?;
    let plugin_type = text_of(type_node, "plugin_type")?;
    if !PLUGIN_TYPES.contains(&plugin_type.as_str()) {
        return Err(spec_err(
            type_node,
            format!(
                "unknown plugin_type '{plugin_type}' (expected one of: {})",
                PLUGIN_TYPES.join(", ")
            ),
        ));
    }
    let entry_point =
        scalar(config, "entry_point", "entry_point")?.unwrap_or_else(|| "main.yml".to_string());
    let roles_path = scalar(config, "roles_path", "roles_path")?;

    let subs_node = top.get("subparsers").ok_or_else(|| {
        spec_err(
            doc,
            "a plugin.spec needs 'subparsers' with the plugin's name",
        )
    })?;
    let subs = as_map(subs_node, "subparsers")?
        .filter(|m| m.len() == 1)
        .ok_or_else(|| {
            spec_err(
                subs_node,
                "subparsers must hold exactly one entry: the plugin's name",
            )
        })?;
    let (name_node, body_node) = subs.iter().next().expect("one entry");
    let name = text_of(name_node, "the plugin name")?;
    if name == "all" || name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
        return Err(spec_err(
            name_node,
            format!("'{name}' cannot be a plugin name"),
        ));
    }
    let empty = Mapping::new();
    let body = as_map(body_node, "the plugin's subparser")?.unwrap_or(&empty);
    check_keys(body, PARSER_KEYS, &format!("subparser '{name}'"))?;
    let description = match scalar(body, "description", "description")? {
        Some(d) => d,
        None => scalar(top, "description", "description")?.ok_or_else(|| {
            spec_err(
                name_node,
                format!("subparser '{name}' needs a 'description'"),
            )
        })?,
    };
    let parser = build_parser(&name, body, &description, &mut warnings)?;
    check_parser(&parser, &format!("plugin '{name}'"))?;
    check_references(&parser)?;

    let playbook = dir.join(&entry_point);
    if !playbook.is_file() {
        let mut err = SpecError::new(
            ErrorClass::SpecError,
            format!(
                "plugin '{name}': its playbook {entry_point} is missing ({})",
                playbook.display()
            ),
        );
        if let Some(n) = config.get("entry_point") {
            err = err.with_span(n.span);
        }
        return Err(err);
    }
    Ok(Plugin {
        dir,
        spec_file,
        name,
        plugin_type,
        description,
        entry_point,
        roles_path,
        parser,
        warnings,
    })
}

fn build_parser(
    name: &str,
    body: &Mapping,
    description: &str,
    warnings: &mut Vec<SpecError>,
) -> Result<ParserSpec> {
    let mut parser = ParserSpec {
        name: name.to_string(),
        help: description.to_string(),
        description: description.to_string(),
        ..ParserSpec::default()
    };
    if let Some(node) = body.get("groups") {
        for g in as_seq(node, "groups")? {
            parser.groups.push(build_group(g, warnings)?);
        }
    }
    if let Some(node) = body.get("include_groups") {
        let shared = builtin_groups();
        for item in as_seq(node, "include_groups")? {
            let title = text_of(item, "an included group title")?;
            let group = shared.iter().find(|g| g.title == title).ok_or_else(|| {
                let known: Vec<String> = shared.iter().map(|g| format!("'{}'", g.title)).collect();
                spec_err(
                    item,
                    format!(
                        "include_groups names the unknown shared group '{title}' (known: {})",
                        known.join(", ")
                    ),
                )
            })?;
            parser.groups.push(group.clone());
        }
    }
    if let Some(node) = body.get("options") {
        parser.options = build_options(node, warnings)?;
    }
    Ok(parser)
}

fn build_group(node: &Node, warnings: &mut Vec<SpecError>) -> Result<Group> {
    let map =
        as_map(node, "a group")?.ok_or_else(|| spec_err(node, "a group must not be empty"))?;
    check_keys(map, GROUP_KEYS, "a group")?;
    let title = scalar(map, "title", "a group title")?
        .ok_or_else(|| spec_err(node, "a group needs a 'title'"))?;
    let options = match map.get("options") {
        Some(o) => build_options(o, warnings)?,
        None => Vec::new(),
    };
    Ok(Group { title, options })
}

fn build_options(node: &Node, warnings: &mut Vec<SpecError>) -> Result<Vec<OptionSpec>> {
    let mut out = Vec::new();
    if let Some(map) = as_map(node, "options")? {
        for (k, v) in map.iter() {
            let name = text_of(k, "an option name")?;
            out.push(build_option(&name, k, v, warnings)?);
        }
    }
    Ok(out)
}

fn build_option(
    name: &str,
    key: &Node,
    node: &Node,
    warnings: &mut Vec<SpecError>,
) -> Result<OptionSpec> {
    if name.is_empty()
        || name.starts_with('-')
        || name.contains(|c: char| c.is_whitespace() || c == '=')
    {
        return Err(spec_err(key, format!("invalid option name '{name}'")));
    }
    let mut opt = OptionSpec {
        name: name.to_string(),
        span: key.span,
        ..OptionSpec::default()
    };
    let empty = Mapping::new();
    let map = as_map(node, &format!("option '{name}'"))?.unwrap_or(&empty);
    let mut action_given = false;
    for (k, v) in map.iter() {
        let key_text = k.scalar_text().unwrap_or_default();
        if !OPTION_KEYS.contains(&key_text.as_str()) {
            warnings.push(
                SpecError::new(
                    ErrorClass::SpecError,
                    format!(
                        "unknown key '{key_text}' in option '{name}' is ignored{}",
                        hint(&key_text)
                    ),
                )
                .with_span(k.span),
            );
            continue;
        }
        if key_text == "action" {
            action_given = true;
        }
        apply_key(&mut opt, &key_text, v)?;
    }
    match opt.type_name.as_deref() {
        Some("Flag") => opt.action = Action::StoreTrue,
        Some("NestedList") if !action_given => opt.action = Action::Append,
        _ => {}
    }
    if opt.action.is_flag() && opt.nargs.is_some() {
        return Err(spec_err(
            node,
            format!("option '{name}': nargs cannot be combined with a flag action"),
        ));
    }
    Ok(opt)
}

/// A nudge for a misspelt option key.
fn hint(key: &str) -> String {
    let close = OPTION_KEYS.iter().find(|k| {
        k.len() == key.len() && k.chars().zip(key.chars()).filter(|(a, b)| a != b).count() <= 2
    });
    match close {
        Some(k) => format!(" (did you mean '{k}'?)"),
        None => String::new(),
    }
}

fn apply_key(opt: &mut OptionSpec, key: &str, v: &Node) -> Result<()> {
    let name = opt.name.clone();
    match key {
        "type" => {
            let t = text_of(v, "type")?;
            if !OPTION_TYPES.contains(&t.as_str()) {
                return Err(spec_err(
                    v,
                    format!(
                        "unknown type '{t}' of option '{name}' (known types: {})",
                        OPTION_TYPES.join(", ")
                    ),
                ));
            }
            opt.type_name = Some(t);
        }
        "help" => opt.help = text_of(v, "help")?,
        "default" => opt.default = Some(to_json(v)),
        "required" => opt.required = truthy_node(v),
        "choices" => {
            for c in as_seq(v, "choices")? {
                opt.choices.push(text_of(c, "a choice")?);
            }
        }
        "action" => {
            let a = text_of(v, "action")?;
            opt.action = match a.as_str() {
                "read-answers" => Action::ReadConfig,
                "generate-answers" => Action::GenerateConfig,
                "read-config" | "generate-config" => {
                    return Err(spec_err(v, format!("unknown action '{a}' of '{name}'")))
                }
                other => Action::parse(other)
                    .ok_or_else(|| spec_err(v, format!("unknown action '{a}' of '{name}'")))?,
            };
        }
        "nargs" => opt.nargs = Some(parse_nargs(v, &name)?),
        "const" => opt.constant = Some(to_json(v)),
        "metavar" => opt.metavar = Some(text_of(v, "metavar")?),
        "short" => {
            let s = text_of(v, "short")?;
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if c.is_ascii_alphanumeric() => opt.short = Some(c),
                _ => {
                    return Err(spec_err(
                        v,
                        format!("short of '{name}' must be one letter or digit, got '{s}'"),
                    ))
                }
            }
        }
        "silent" => {
            let items: Vec<&Node> = match v.as_seq() {
                Some(seq) => seq.iter().collect(),
                None => vec![v],
            };
            for s in items {
                opt.silent.push(text_of(s, "a silenced option name")?);
            }
        }
        "required_when" => {
            let items: Vec<&Node> = match v.as_seq() {
                Some(seq) => seq.iter().collect(),
                None => vec![v],
            };
            for item in items {
                let text = item.as_str().ok_or_else(|| {
                    spec_err(item, format!("required_when of '{name}' must be a string"))
                })?;
                let expr = WhenExpr::parse(text)
                    .map_err(|m| spec_err(item, format!("required_when of '{name}': {m}")))?;
                opt.plugin.required_when.push(expr);
            }
        }
        "ansible_variable" => opt.plugin.ansible_variable = Some(text_of(v, key)?),
        "deprecates" => opt.plugin.deprecates = Some(text_of(v, key)?),
        "lookup_dir" => opt.plugin.lookup_dir = Some(text_of(v, key)?),
        "length" => {
            let n = v.as_i64().filter(|n| *n >= 0).ok_or_else(|| {
                spec_err(
                    v,
                    format!("length of '{name}' must be a non-negative integer"),
                )
            })?;
            opt.plugin.length = Some(n as usize);
        }
        "minimum" | "maximum" => {
            let n = v
                .as_f64()
                .ok_or_else(|| spec_err(v, format!("{key} of '{name}' must be a number")))?;
            if key == "minimum" {
                opt.plugin.minimum = Some(n);
            } else {
                opt.plugin.maximum = Some(n);
            }
        }
        _ => {}
    }
    Ok(())
}

/// `required_when`, `silent` and `deprecates` name options of this plugin.
fn check_references(parser: &ParserSpec) -> Result<()> {
    let all = parser.all_options();
    let known = |n: &str| all.iter().any(|o| o.name == n);
    for opt in &all {
        let at = |msg: String| {
            let err = SpecError::new(ErrorClass::SpecError, msg);
            if opt.plugin.shared {
                err
            } else {
                err.with_span(opt.span)
            }
        };
        for expr in &opt.plugin.required_when {
            if let Some(bad) = expr.subjects().find(|s| !known(s)) {
                return Err(at(format!(
                    "required_when of option '{}' ('{}') names '{bad}', which is not an option of this plugin",
                    opt.name, expr.text
                )));
            }
        }
        if let Some(bad) = opt.silent.iter().find(|s| !known(s)) {
            return Err(at(format!(
                "silent of option '{}' names '{bad}', which is not an option of this plugin",
                opt.name
            )));
        }
        if let Some(old) = opt.plugin.deprecates.as_deref().filter(|d| !known(d)) {
            return Err(at(format!(
                "option '{}' deprecates '{old}', which is not an option of this plugin",
                opt.name
            )));
        }
        if opt.type_name.as_deref() == Some("ListOfFileNames") && opt.plugin.lookup_dir.is_none() {
            return Err(at(format!(
                "option '{}' of type ListOfFileNames needs 'lookup_dir'",
                opt.name
            )));
        }
    }
    Ok(())
}
