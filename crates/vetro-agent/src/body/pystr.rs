//! Python's `str()`, `repr()` and truth of JSON-shaped values.

use serde_json::Value as Json;

/// Python's `str(value)`.
pub fn py_str(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr(value)`.
pub fn py_repr(v: &Json) -> String {
    match v {
        Json::Null => "None".into(),
        Json::Bool(true) => "True".into(),
        Json::Bool(false) => "False".into(),
        Json::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => vetro_pycompat::repr::float_repr(f),
            _ => n.to_string(),
        },
        Json::String(s) => vetro_pycompat::repr::str_repr(s),
        Json::Array(items) => {
            let parts: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Json::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", vetro_pycompat::repr::str_repr(k), py_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// Python's truth value.
pub fn truthy(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(m) => !m.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn str_and_repr_follow_python() {
        assert_eq!(py_str(&json!("a")), "a");
        assert_eq!(py_str(&json!(true)), "True");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(2.0)), "2.0");
        assert_eq!(py_str(&json!(7)), "7");
        assert_eq!(py_str(&json!({"a": [1, "x"]})), "{'a': [1, 'x']}");
        assert_eq!(py_repr(&json!("it's")), "\"it's\"");
        assert!(!truthy(&json!("")) && truthy(&json!([0])) && !truthy(&json!(0)));
    }
}
