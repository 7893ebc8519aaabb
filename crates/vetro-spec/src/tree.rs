//! Operations on the settings tree (JSON values): the two merge rules,
//! nested keys, truthiness and Python's text form of values.

use serde_json::{Map, Value};

/// How two non-mapping values combine when merging trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListMerge {
    /// Append the later list's items not already present (settings files).
    Union,
    /// The later value replaces the earlier one (user arguments).
    Replace,
}

/// Merge `over` into `base`: mappings recursively, lists per `lists`,
/// anything else replaced.
pub fn merge(base: &mut Value, over: Value, lists: ListMerge) {
    match (base, over) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(slot) => merge(slot, v, lists),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if lists == ListMerge::Union => {
            for item in b {
                if !a.contains(&item) {
                    a.push(item);
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Put `value` at `path` inside `tree`, creating mappings on the way
/// (a non-mapping on the way is replaced). A mapping value landing on a
/// mapping is merged into it.
pub fn insert_path(tree: &mut Value, path: &[String], value: Value, lists: ListMerge) {
    let mut cur = tree;
    for key in path {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        let Value::Object(map) = cur else { return };
        cur = map.entry(key.clone()).or_insert(Value::Null);
    }
    if cur.is_object() && value.is_object() {
        merge(cur, value, lists);
    } else {
        *cur = value;
    }
}

/// The value at a dotted key path.
pub fn get_path<'a>(tree: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = tree;
    for key in path {
        cur = cur.as_object()?.get(*key)?;
    }
    Some(cur)
}

/// Python truthiness.
pub fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// Python's `str()` of a value (`True`, `None`, `['a', 1]`, `{'k': 'v'}`).
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of a value.
pub fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => vetro_yaml_float(f),
            _ => n.to_string(),
        },
        Value::String(s) => {
            if s.contains('\'') && !s.contains('"') {
                format!("\"{s}\"")
            } else {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
        }
        Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", py_repr(&Value::String(k.clone())), py_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn vetro_yaml_float(f: f64) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        f.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn union_and_replace() {
        let mut a = json!({"x": [1, 2], "m": {"k": 1}});
        merge(
            &mut a,
            json!({"x": [2, 3], "m": {"j": 2}}),
            ListMerge::Union,
        );
        assert_eq!(a, json!({"x": [1, 2, 3], "m": {"k": 1, "j": 2}}));
        merge(&mut a, json!({"x": ["y"]}), ListMerge::Replace);
        assert_eq!(a["x"], json!(["y"]));
    }

    #[test]
    fn nested_insert() {
        let mut t = json!({});
        insert_path(
            &mut t,
            &["a".into(), "b".into()],
            json!(1),
            ListMerge::Replace,
        );
        assert_eq!(t, json!({"a": {"b": 1}}));
    }

    #[test]
    fn python_text() {
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(["a", 1])), "['a', 1]");
        assert_eq!(py_str(&json!({"k": null})), "{'k': None}");
    }
}
