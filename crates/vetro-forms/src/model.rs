//! Object models: ids as the dashboard made them, the environment around
//! the applications.

use serde_json::{json, Map, Value as Json};

/// Where the dashboard kept its own attributes in an application's header
/// (the application's display name); the engine ignores it.
pub const DASHBOARD_ATTRS_KEY: &str = "_26411a1861294160833743e45d0eaad9";

/// A new object id, as the dashboard made them (a random UUID, with dashes).
pub fn new_object_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A new environment id, as the API made them (a random UUID, without dashes).
pub fn new_environment_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Give every object header (`?` mapping) without an `id` a new one.
pub fn insert_ids(v: &mut Json) {
    match v {
        Json::Object(m) => {
            for (k, child) in m.iter_mut() {
                if k == "?" {
                    if let Some(h) = child.as_object_mut() {
                        if !h.get("id").is_some_and(Json::is_string) {
                            h.insert("id".into(), Json::String(new_object_id()));
                        }
                        continue;
                    }
                }
                insert_ids(child);
            }
        }
        Json::Array(items) => items.iter_mut().for_each(insert_ids),
        _ => {}
    }
}

/// The object model of a new environment named `name` holding
/// `applications`, as Murano stored it for a deployment: the environment's
/// own network by default, and no other input.
pub fn environment_model(name: &str, applications: Vec<Json>) -> Json {
    let mut objects = Map::new();
    objects.insert(
        "?".into(),
        json!({"id": new_environment_id(), "type": "io.murano.Environment"}),
    );
    objects.insert("name".into(), Json::String(name.to_string()));
    objects.insert(
        "defaultNetworks".into(),
        json!({
            "environment": {
                "?": {"id": new_environment_id(), "type": "io.murano.resources.NeutronNetwork"},
                "name": format!("{name}-network"),
            },
            "flat": null,
        }),
    );
    objects.insert("applications".into(), Json::Array(applications));
    json!({"Objects": Json::Object(objects), "Attributes": []})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_without_an_id_gets_one() {
        let mut v = json!({"?": {"type": "A"}, "x": [{"?": {"type": "B", "id": "keep"}}, {"?": {"type": "C"}}]});
        insert_ids(&mut v);
        assert_eq!(v["?"]["id"].as_str().map(str::len), Some(36));
        assert_eq!(v["x"][0]["?"]["id"], "keep");
        assert!(v["x"][1]["?"]["id"].is_string());
        assert_ne!(v["?"]["id"], v["x"][1]["?"]["id"]);
    }

    #[test]
    fn an_environment_holds_its_applications() {
        let m = environment_model("demo", vec![json!({"?": {"type": "A", "id": "1"}})]);
        assert_eq!(m["Objects"]["?"]["type"], "io.murano.Environment");
        assert_eq!(
            m["Objects"]["defaultNetworks"]["environment"]["name"],
            "demo-network"
        );
        assert_eq!(m["Objects"]["applications"][0]["?"]["id"], "1");
    }
}
