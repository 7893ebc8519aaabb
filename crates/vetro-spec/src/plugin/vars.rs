//! The vars tree handed to the playbook: `{PLUGIN_TYPE: {nested options}}`,
//! options with `ansible_variable` at the top level, then `-e/--extra-vars`
//! merged last.

use crate::error::{ErrorClass, Result, SpecError};
use crate::tree::{insert_path, merge, ListMerge};
use crate::yamlfile::load_settings_file;
use serde_json::{Map, Value};
use std::path::Path;
use vetro_diag::SourceMap;

/// `host-address` of a `provision` plugin lands at `provision.host.address`.
pub fn nest(
    plugin_type: &str,
    nested: &[(String, Value)],
    custom: &[(String, Value)],
) -> Result<Value> {
    check_prefix_conflicts(plugin_type, nested)?;
    let mut inner = Value::Object(Map::new());
    for (name, value) in nested {
        let path: Vec<String> = name.split('-').map(str::to_string).collect();
        insert_path(&mut inner, &path, value.clone(), ListMerge::Replace);
    }
    let mut top = Map::new();
    top.insert(plugin_type.to_string(), inner);
    for (var, value) in custom {
        top.insert(var.clone(), value.clone());
    }
    Ok(Value::Object(top))
}

/// `--a` holding a non-mapping and `--a-b` both set cannot share the tree.
fn check_prefix_conflicts(plugin_type: &str, nested: &[(String, Value)]) -> Result<()> {
    for (short, value) in nested {
        if value.is_object() {
            continue;
        }
        let prefix = format!("{short}-");
        if let Some((long, _)) = nested.iter().find(|(n, _)| n.starts_with(&prefix)) {
            return Err(SpecError::new(
                ErrorClass::InvalidValue,
                format!(
                    "--{short} and --{long} are both set, but {plugin_type}.{} cannot hold a value and the key '{}' at once",
                    short.replace('-', "."),
                    long[prefix.len()..].replace('-', ".")
                ),
            ));
        }
    }
    Ok(())
}

/// Apply `-e` items in order: `@FILE` merges a YAML file, `KEY=@FILE` puts a
/// file's content at a dotted key, `KEY=VALUE` sets a dotted key to a string.
pub fn apply_extra_vars(
    tree: &mut Value,
    items: &[String],
    cwd: &Path,
    sources: &mut SourceMap,
) -> Result<()> {
    let load = |file: &str, sources: &mut SourceMap| -> Result<Value> {
        if file.is_empty() {
            return Err(SpecError::new(
                ErrorClass::BadExtraVars,
                "extra-vars '@' needs a file name: -e @FILE",
            ));
        }
        let path = cwd.join(file);
        if !path.is_file() {
            return Err(SpecError::new(
                ErrorClass::FileNotFound,
                format!("extra-vars file not found: {file}"),
            ));
        }
        load_settings_file(&path, sources)
    };
    for item in items {
        if let Some(file) = item.strip_prefix('@') {
            let value = load(file, sources)?;
            merge(tree, value, ListMerge::Union);
        } else if let Some((key, value)) = item.split_once('=') {
            let path: Vec<String> = key.split('.').map(str::to_string).collect();
            if let Some(file) = value.strip_prefix('@') {
                let mut sub = Value::Object(Map::new());
                insert_path(&mut sub, &path, load(file, sources)?, ListMerge::Replace);
                merge(tree, sub, ListMerge::Union);
            } else {
                insert_path(
                    tree,
                    &path,
                    Value::String(value.to_string()),
                    ListMerge::Replace,
                );
            }
        } else {
            return Err(SpecError::new(
                ErrorClass::BadExtraVars,
                format!("extra-vars '{item}' is neither @FILE nor KEY=VALUE"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nesting_and_conflicts() {
        let nested = vec![
            ("host-address".to_string(), json!("h")),
            ("host-user".to_string(), json!("root")),
        ];
        let custom = vec![("top_var".to_string(), json!(1))];
        let tree = nest("provision", &nested, &custom).unwrap();
        assert_eq!(
            tree,
            json!({"provision": {"host": {"address": "h", "user": "root"}}, "top_var": 1})
        );
        let clash = vec![
            ("tag".to_string(), json!("x")),
            ("tag-label".to_string(), json!("y")),
        ];
        assert_eq!(
            nest("install", &clash, &[]).unwrap_err().class,
            ErrorClass::InvalidValue
        );
    }

    #[test]
    fn extra_vars() {
        let mut tree = json!({"test": {"a": [1]}});
        let mut sources = SourceMap::new();
        let items = vec!["test.b.c=x".to_string(), "top=y".to_string()];
        apply_extra_vars(&mut tree, &items, Path::new("/"), &mut sources).unwrap();
        assert_eq!(
            tree,
            json!({"test": {"a": [1], "b": {"c": "x"}}, "top": "y"})
        );
        let bad = vec!["novalue".to_string()];
        let err = apply_extra_vars(&mut tree, &bad, Path::new("/"), &mut sources).unwrap_err();
        assert_eq!(err.class, ErrorClass::BadExtraVars);
    }
}
