//! Every field type: its view (choices, initial value) and how a submitted
//! value is cleaned and checked.

use serde_json::{json, Map, Value as Json};
use vetro_diag::SourceMap;
use vetro_forms::{
    AppInfo, ExistingApp, FormErrors, Inventory, Limits, SubmitOptions, UiDefinition, Wizard,
};

fn load() -> UiDefinition {
    let mut sources = SourceMap::new();
    let (ui, problems) = vetro_forms::parse_str(
        "ui.yaml",
        include_str!("fixtures/every_type.yaml"),
        &mut sources,
    );
    assert!(problems.is_empty(), "{problems:?}");
    let ui = ui.unwrap();
    assert!(vetro_forms::check(&ui, &sources).is_empty());
    ui
}

fn wizard(ui: &UiDefinition) -> Wizard<'_> {
    let inventory = Inventory {
        cloud: vetro_dsl::cloud::simulator::catalog(),
        apps: vec![
            ExistingApp {
                id: "ad-1".into(),
                name: "corp".into(),
                classes: vec!["io.murano.windows.ActiveDirectory".into()],
            },
            ExistingApp {
                id: "db-1".into(),
                name: "db".into(),
                classes: vec!["io.example.MySql".into(), "io.example.Database".into()],
            },
        ],
    };
    let app = AppInfo {
        fqn: "io.example.Everything".into(),
        display_name: "Everything".into(),
    };
    Wizard::new(ui, app, inventory, Limits::default(), Map::new()).unwrap()
}

fn good() -> Map<String, Json> {
    json!({"notes": " some text ", "secret": "Str0ng!pass", "pin": "1234", "enabled": "on",
           "colour": "g", "shape": "sq", "key": "vetro-key", "zone": "nova-2", "group": "default",
           "disk": "sim-volume-data", "dns": "example.org.", "fip": true, "vip": "10.0.0.9",
           "domain": "ad-1", "dbs": "one, _two", "db": "db-1", "size": 4, "host": "web"})
    .as_object()
    .cloned()
    .unwrap()
}

fn with(key: &str, value: Json) -> Map<String, Json> {
    let mut m = good();
    m.insert(key.into(), value);
    m
}

fn rules(e: FormErrors) -> Vec<(String, String)> {
    e.errors
        .into_iter()
        .map(|e| (e.field.unwrap_or_default(), e.rule))
        .collect()
}

fn refused(key: &str, value: Json) -> Vec<(String, String)> {
    let ui = load();
    let mut w = wizard(&ui);
    rules(
        w.submit(0, &with(key, value), SubmitOptions::default())
            .unwrap_err(),
    )
}

#[test]
fn views_list_choices_and_preselect_as_the_dashboard() {
    let ui = load();
    let w = wizard(&ui);
    let f = w.form(0).unwrap();
    let by = |n: &str| f.fields.iter().find(|x| x.name == n).unwrap().clone();
    assert_eq!(by("notes").kind, "text");
    assert_eq!(
        (by("secret").min_length, by("secret").confirm_input),
        (Some(7), true)
    );
    assert!(!by("pin").confirm_input);
    assert_eq!(
        (by("enabled").required, by("enabled").initial.clone()),
        (false, json!(false))
    );
    assert_eq!(by("colour").choices.unwrap().len(), 2);
    assert_eq!(by("shape").initial, json!("ci"));
    assert_eq!(by("key").initial, json!("vetro-key"), "the only key pair");
    assert_eq!(by("zone").initial, json!("nova"));
    assert_eq!(by("group").initial, json!(""));
    assert_eq!(
        by("disk").choices.unwrap().len(),
        2,
        "a blank and the volume, no snapshot"
    );
    assert_eq!(by("dns").choices.unwrap().len(), 2);
    assert_eq!(by("domain").initial, json!(""));
    assert_eq!(
        by("db").initial,
        json!("db-1"),
        "the only database of the environment"
    );
    assert_eq!(by("size").initial, json!(3), "from a parameter");
    assert_eq!(by("host").regexps[0].message, "starts with a letter");
}

#[test]
fn good_values_are_cleaned_to_their_types() {
    let ui = load();
    let mut w = wizard(&ui);
    let c = w.submit(0, &good(), SubmitOptions::default()).unwrap();
    assert_eq!(c["notes"], "some text");
    assert_eq!(c["enabled"], true);
    assert_eq!(c["dbs"], json!(["one", "_two"]));
    assert_eq!(c["vip"], "10.0.0.9");
    assert_eq!(c["db"], "db-1");
    w.submit(
        1,
        &json!({"application_name": "all"})
            .as_object()
            .cloned()
            .unwrap(),
        SubmitOptions::default(),
    )
    .unwrap();
    let m = w.build().unwrap();
    assert_eq!(m["values"]["size"], 4);
    assert_eq!(m["first"]["size"], 4);
    assert_eq!(
        m["again"], m["first"]["?"]["id"],
        "ref() gives the id the second time"
    );
}

#[test]
fn each_rule_refuses_its_bad_value() {
    assert!(
        refused("secret", json!("weakpassword")).contains(&("secret".into(), "password".into()))
    );
    assert!(refused("secret", json!("S1!a")).contains(&("secret".into(), "minLength".into())));
    assert!(refused("pin", json!("12a4")).contains(&("pin".into(), "regexpValidator".into())));
    assert!(refused("enabled", json!("maybe")).contains(&("enabled".into(), "type".into())));
    assert!(refused("colour", json!("blue")).contains(&("colour".into(), "choice".into())));
    assert!(refused("zone", json!("mars")).contains(&("zone".into(), "choice".into())));
    assert!(refused("zone", json!({"a": 1})).contains(&("zone".into(), "type".into())));
    assert!(refused("vip", json!("10.0.0.300")).contains(&("vip".into(), "clusterip".into())));
    assert!(refused("dbs", json!("ok, 9bad")).contains(&("dbs".into(), "databaselist".into())));
    assert!(refused("db", json!("nope")).contains(&("db".into(), "choice".into())));
    assert!(refused("size", json!(10)).contains(&("size".into(), "maxValue".into())));
    assert!(refused("size", json!(0)).contains(&("size".into(), "minValue".into())));
    assert!(refused("size", json!("2.5")).contains(&("size".into(), "type".into())));
    assert!(refused("secret", json!(null)).contains(&("secret".into(), "required".into())));
    let host = refused("host", json!("9-very-long-name"));
    assert!(
        host.contains(&("host".into(), "validators[0]".into())),
        "{host:?}"
    );
    assert!(
        host.contains(&("host".into(), "validators[1]".into())),
        "{host:?}"
    );
}

#[test]
fn passwords_are_confirmed_when_asked() {
    let ui = load();
    let mut w = wizard(&ui);
    let opts = SubmitOptions {
        confirm_passwords: true,
        reject_unknown: true,
    };
    let e = w.submit(0, &good(), opts).unwrap_err();
    assert_eq!(
        rules(e),
        [("secret".to_string(), "confirmInput".to_string())]
    );
    let mut v = good();
    v.insert("secret-clone".into(), json!("Str0ng!pass"));
    w.submit(0, &v, opts).unwrap();
}

#[test]
fn the_state_survives_a_round_trip() {
    let ui = load();
    let mut w = wizard(&ui);
    w.submit(0, &good(), SubmitOptions::default()).unwrap();
    let saved = serde_json::to_string(w.state()).unwrap();
    let state = serde_json::from_str(&saved).unwrap();
    let app = AppInfo {
        fqn: "io.example.Everything".into(),
        display_name: "E".into(),
    };
    let mut w2 = Wizard::resume(&ui, app, w.inventory().clone(), Limits::default(), state);
    w2.submit(
        1,
        &json!({"application_name": "all"})
            .as_object()
            .cloned()
            .unwrap(),
        SubmitOptions::default(),
    )
    .unwrap();
    assert_eq!(w2.build().unwrap()["values"]["colour"], "g");
}
