//! The environment model between the service's form and the engine's: Murano
//! stores the root's applications under `services` and the engine reads them
//! as `applications`; a deletion runs with no objects so that everything the
//! previous deployment created is destroyed.

use serde_json::{Map, Value as Json};

const STORED: &str = "services";
const ENGINE: &str = "applications";
const TREES: [&str; 2] = ["Objects", "ObjectsCopy"];

/// The id of the model's root object.
pub fn root_id(model: &Json) -> Option<String> {
    let root = model.get("Objects").unwrap_or(model);
    root.get("?")?.get("id")?.as_str().map(str::to_string)
}

/// Whether the stored model keeps the applications under `services`.
pub fn uses_services(model: &Json) -> bool {
    TREES
        .iter()
        .filter_map(|t| model.get(*t))
        .any(|root| root.get(STORED).is_some())
}

fn rename_key(root: &mut Json, from: &str, to: &str) {
    if let Json::Object(map) = root {
        if map.contains_key(to) {
            return;
        }
        if let Some(v) = map.remove(from) {
            map.insert(to.to_string(), v);
        }
    }
}

/// The model the engine loads (`Objects` null for a deletion).
pub fn to_engine(model: &Json, delete: bool) -> Json {
    let mut out = match model {
        Json::Object(m) if m.contains_key("Objects") || m.contains_key("ObjectsCopy") => m.clone(),
        // A bare root object is the model's Objects.
        other => {
            let mut m = Map::new();
            m.insert("Objects".into(), other.clone());
            m
        }
    };
    for t in TREES {
        if let Some(root) = out.get_mut(t) {
            rename_key(root, STORED, ENGINE);
        }
    }
    if delete {
        out.insert("Objects".into(), Json::Null);
    }
    Json::Object(out)
}

/// The engine's serialized model in the stored form.
pub fn from_engine(mut model: Json, services: bool) -> Json {
    if services {
        for t in TREES {
            if let Some(root) = model.get_mut(t) {
                rename_key(root, ENGINE, STORED);
            }
        }
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn services_become_applications_and_back() {
        let stored = json!({"Objects": {"?": {"id": "e"}, "services": [1]}, "Attributes": []});
        assert!(uses_services(&stored));
        let e = to_engine(&stored, false);
        assert_eq!(e["Objects"]["applications"], json!([1]));
        assert!(e["Objects"].get("services").is_none());
        let back = from_engine(e, true);
        assert_eq!(back["Objects"]["services"], json!([1]));
        assert_eq!(root_id(&stored).as_deref(), Some("e"));
    }

    #[test]
    fn a_deletion_has_no_objects_and_keeps_the_copy() {
        let stored = json!({"Objects": {"?": {"id": "e"}}, "ObjectsCopy": {"?": {"id": "e"}}});
        let e = to_engine(&stored, true);
        assert!(e["Objects"].is_null());
        assert_eq!(e["ObjectsCopy"]["?"]["id"], "e");
        let bare = to_engine(&json!({"?": {"id": "x"}}), false);
        assert_eq!(bare["Objects"]["?"]["id"], "x");
    }
}
