//! Murano's path addressing into object models (`TraverseHelper`): segments
//! separated by `/`; in a list, a segment selects the item whose `?.id`
//! equals it, or else the item at that numeric index; in a mapping, the key.

use serde_json::Value;

/// Why a path does not address anything.
#[derive(Debug, PartialEq, Eq)]
pub struct PathError(pub String);

fn segments(path: &str) -> Vec<&str> {
    path.split('/').filter(|s| !s.is_empty()).collect()
}

fn list_index(items: &[Value], key: &str) -> Option<usize> {
    items
        .iter()
        .position(|i| i.pointer("/?/id").and_then(Value::as_str) == Some(key))
        .or_else(|| key.parse::<usize>().ok().filter(|&n| n < items.len()))
}

fn step<'a>(node: &'a Value, key: &str) -> Option<&'a Value> {
    match node {
        Value::Array(items) => list_index(items, key).map(|i| &items[i]),
        Value::Object(map) => map.get(key),
        _ => None,
    }
}

fn step_mut<'a>(node: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match node {
        Value::Array(items) => list_index(items, key).map(move |i| &mut items[i]),
        Value::Object(map) => map.get_mut(key),
        _ => None,
    }
}

fn missing(path: &str) -> PathError {
    PathError(format!("nothing at path '{path}'"))
}

pub fn get<'a>(root: &'a Value, path: &str) -> Result<&'a Value, PathError> {
    segments(path)
        .into_iter()
        .try_fold(root, |node, key| step(node, key))
        .ok_or_else(|| missing(path))
}

pub fn get_mut<'a>(root: &'a mut Value, path: &str) -> Result<&'a mut Value, PathError> {
    let mut node = root;
    for key in segments(path) {
        node = step_mut(node, key).ok_or_else(|| missing(path))?;
    }
    Ok(node)
}

/// Appends `value` to the list at `path`, or each element when `value` is a list.
pub fn append(root: &mut Value, path: &str, value: Value) -> Result<(), PathError> {
    match get_mut(root, path)? {
        Value::Array(items) => {
            match value {
                Value::Array(more) => items.extend(more),
                one => items.push(one),
            }
            Ok(())
        }
        _ => Err(PathError(format!("'{path}' is not a list"))),
    }
}

/// Replaces the value at `path` (the root cannot be replaced; a missing
/// mapping key is added).
pub fn replace(root: &mut Value, path: &str, value: Value) -> Result<(), PathError> {
    let segs = segments(path);
    let Some((last, parents)) = segs.split_last() else {
        return Err(PathError("the root of the model cannot be replaced".into()));
    };
    let parent = get_mut(root, &parents.join("/"))?;
    match parent {
        Value::Array(items) => {
            let i = list_index(items, last).ok_or_else(|| missing(path))?;
            items[i] = value;
        }
        Value::Object(map) => {
            map.insert(last.to_string(), value);
        }
        _ => return Err(missing(path)),
    }
    Ok(())
}

/// Removes the value at `path`.
pub fn remove(root: &mut Value, path: &str) -> Result<(), PathError> {
    let segs = segments(path);
    let Some((last, parents)) = segs.split_last() else {
        return Err(PathError("the root of the model cannot be removed".into()));
    };
    let parent = get_mut(root, &parents.join("/"))?;
    match parent {
        Value::Array(items) => {
            let i = list_index(items, last).ok_or_else(|| missing(path))?;
            items.remove(i);
        }
        Value::Object(map) => {
            map.shift_remove(*last).ok_or_else(|| missing(path))?;
        }
        _ => return Err(missing(path)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model() -> Value {
        json!({"services": [{"?": {"id": "a"}, "name": "x"}, {"?": {"id": "b"}, "name": "y"}]})
    }

    #[test]
    fn selects_list_items_by_id_then_index() {
        let m = model();
        assert_eq!(get(&m, "/services/b/name").unwrap(), &json!("y"));
        assert_eq!(get(&m, "/services/0/name").unwrap(), &json!("x"));
        assert!(get(&m, "/services/c").is_err());
        assert!(get(&m, "/services/7").is_err());
        assert_eq!(get(&m, "/").unwrap(), &m);
    }

    #[test]
    fn writes() {
        let mut m = model();
        append(&mut m, "/services", json!({"?": {"id": "c"}})).unwrap();
        append(&mut m, "/services", json!([{"?": {"id": "d"}}])).unwrap();
        assert_eq!(m["services"].as_array().unwrap().len(), 4);
        replace(&mut m, "/services/a/name", json!("z")).unwrap();
        replace(&mut m, "/services/b", json!({"?": {"id": "b2"}})).unwrap();
        assert_eq!(m["services"][0]["name"], json!("z"));
        assert_eq!(m["services"][1]["?"]["id"], json!("b2"));
        remove(&mut m, "/services/c").unwrap();
        assert!(remove(&mut m, "/services/c").is_err());
        assert!(replace(&mut m, "/", json!(1)).is_err());
        assert!(append(&mut m, "/services/a/name", json!(1)).is_err());
    }
}
