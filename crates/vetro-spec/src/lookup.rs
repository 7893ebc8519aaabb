//! `{{ !lookup a.b.c }}` in string values, replaced by the text of the value
//! at that key path of the final tree (lookups inside it resolved first).

use crate::error::{ErrorClass, Result, SpecError};
use crate::tree::{get_path, py_str};
use regex::Regex;
use serde_json::Value;
use std::sync::OnceLock;

fn lookup_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{\{\s*!lookup\s+([^\s}]+)\s*\}\}").expect("static regex"))
}

/// Replace every lookup of `tree`.
pub fn resolve_lookups(tree: &mut Value) -> Result<()> {
    let snapshot = tree.clone();
    let mut stack = Vec::new();
    resolve_in(tree, &snapshot, &mut stack)
}

fn resolve_in(v: &mut Value, root: &Value, stack: &mut Vec<String>) -> Result<()> {
    match v {
        Value::String(s) if lookup_re().is_match(s) => {
            *s = resolve_str(s, root, stack)?;
        }
        Value::Array(items) => {
            for i in items {
                resolve_in(i, root, stack)?;
            }
        }
        Value::Object(map) => {
            for (_, i) in map.iter_mut() {
                resolve_in(i, root, stack)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn resolve_str(s: &str, root: &Value, stack: &mut Vec<String>) -> Result<String> {
    let mut out = String::new();
    let mut last = 0;
    for caps in lookup_re().captures_iter(s) {
        let Some(whole) = caps.get(0) else { continue };
        let path = &caps[1];
        out.push_str(&s[last..whole.start()]);
        if stack.iter().any(|p| p == path) {
            return Err(SpecError::new(
                ErrorClass::LookupError,
                format!("circular lookup: {} -> {path}", stack.join(" -> ")),
            ));
        }
        let keys: Vec<&str> = path.split('.').collect();
        let target = get_path(root, &keys).ok_or_else(|| {
            SpecError::new(
                ErrorClass::LookupError,
                format!("lookup of '{path}': no such key in the settings"),
            )
        })?;
        let mut value = target.clone();
        stack.push(path.to_string());
        resolve_in(&mut value, root, stack)?;
        stack.pop();
        out.push_str(&py_str(&value));
        last = whole.end();
    }
    out.push_str(&s[last..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chained_and_circular() {
        let mut t = json!({"a": {"b": "x{{ !lookup a.c }}", "c": 1}, "d": "{{!lookup a.b}}!"});
        resolve_lookups(&mut t).unwrap();
        assert_eq!(t["d"], json!("x1!"));
        let mut c = json!({"x": "{{ !lookup y }}", "y": "{{ !lookup x }}"});
        assert_eq!(
            resolve_lookups(&mut c).unwrap_err().class,
            ErrorClass::LookupError
        );
    }
}
