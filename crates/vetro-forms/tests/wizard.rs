//! The wizard over a self-contained UI definition: views, submissions,
//! errors, the object model.

use serde_json::{json, Map, Value as Json};
use vetro_diag::SourceMap;
use vetro_forms::{AppInfo, Inventory, Limits, SubmitOptions, UiDefinition, Wizard};

fn load(text: &str) -> (UiDefinition, SourceMap) {
    let mut sources = SourceMap::new();
    let (ui, problems) = vetro_forms::parse_str("ui.yaml", text, &mut sources);
    assert!(problems.is_empty(), "{problems:?}");
    (ui.expect("parsed"), sources)
}

fn inventory() -> Inventory {
    Inventory {
        cloud: vetro_dsl::cloud::simulator::catalog(),
        apps: Vec::new(),
    }
}

fn app() -> AppInfo {
    AppInfo {
        fqn: "io.example.App".into(),
        display_name: "Example".into(),
    }
}

fn values(v: Json) -> Map<String, Json> {
    v.as_object().cloned().unwrap_or_default()
}

#[test]
fn a_form_shows_initial_values_constraints_and_choices() {
    let (ui, _) = load(include_str!("fixtures/app.yaml"));
    let w = Wizard::new(&ui, app(), inventory(), Limits::default(), Map::new()).unwrap();
    assert_eq!(w.steps(), ["conf", "workflowManagement"]);
    let form = w.form(0).unwrap();
    let port = &form.fields[0];
    assert_eq!(
        (
            port.kind,
            port.initial.clone(),
            port.min_value,
            port.max_value
        ),
        ("integer", json!(8080), Some(1), Some(65535))
    );
    let admin = &form.fields[1];
    assert_eq!(admin.label, "Admin user");
    assert!(admin.required);
    assert_eq!(admin.regexps[0].message, "lower-case letters only");
    let flavor = &form.fields[4];
    assert_eq!(flavor.initial, json!("m1.medium"));
    let image = &form.fields[5];
    assert_eq!(
        image.initial,
        json!(""),
        "two linux images: the user picks one"
    );
    let network = &form.fields[6];
    assert_eq!(network.initial, json!([null, null]));
    let last = w.form(1).unwrap();
    assert_eq!(last.fields[0].initial, json!("App"));
}

#[test]
fn a_submission_is_refused_field_by_field() {
    let (ui, _) = load(include_str!("fixtures/app.yaml"));
    let mut w = Wizard::new(&ui, app(), inventory(), Limits::default(), Map::new()).unwrap();
    let bad = values(
        json!({"port": "x", "admin": "AB", "count": 12, "flavor": "m9", "image": "", "network": [null, null]}),
    );
    let e = w.submit(0, &bad, SubmitOptions::default()).unwrap_err();
    let rules: Vec<_> = e
        .errors
        .iter()
        .map(|e| (e.field.clone().unwrap_or_default(), e.rule.clone()))
        .collect();
    assert!(rules.contains(&("port".into(), "type".into())), "{rules:?}");
    assert!(
        rules.contains(&("admin".into(), "minLength".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("admin".into(), "regexpValidator".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("count".into(), "validators[0]".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("flavor".into(), "choice".into())),
        "{rules:?}"
    );
    assert!(
        rules.contains(&("image".into(), "required".into())),
        "{rules:?}"
    );
}

#[test]
fn the_object_model_is_built_from_every_step() {
    let (ui, _) = load(include_str!("fixtures/app.yaml"));
    let mut w = Wizard::new(&ui, app(), inventory(), Limits::default(), Map::new()).unwrap();
    let good = values(
        json!({"port": "8081", "admin": "root", "count": 3, "pattern": "web-#",
                             "flavor": "m1.small", "image": "ubuntu-22.04", "network": [null, null]}),
    );
    w.submit(0, &good, SubmitOptions::default()).unwrap();
    w.submit(
        1,
        &values(json!({"application_name": "site"})),
        SubmitOptions::default(),
    )
    .unwrap();
    let m = w.build().unwrap();
    assert_eq!(m["?"]["type"], "io.example.App");
    assert_eq!(m["?"]["name"], "site");
    assert_eq!(m["port"], 8081);
    assert_eq!(m["image"], "sim-image-ubuntu-22.04");
    let nodes = m["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 3);
    assert_eq!(nodes[2]["name"], "web-3");
    assert_eq!(nodes[0]["flavor"], "m1.small");
    assert_ne!(nodes[0]["?"]["id"], nodes[1]["?"]["id"]);
}
