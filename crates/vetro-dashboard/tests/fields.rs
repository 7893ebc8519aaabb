//! Every field type of the form engine rendered as a person expects it, and
//! every validator's message shown at its field.

use serde_json::{json, Map, Value};
use vetro_dashboard::fields::{field, submitted};
use vetro_forms::{AppInfo, FieldView, Inventory, Limits, SubmitOptions, Wizard};

const UI: &str = r#"
Version: 2.4
Application:
  ?: {type: com.example.All}
  name: $.all.s
Forms:
  - all:
      fields:
        - {name: s, type: string, label: Short name, minLength: 2, maxLength: 5, regexpValidator: '^[a-z]+$', description: Lower-case letters.}
        - {name: t, type: text, required: false}
        - {name: pw, type: password}
        - name: n
          type: integer
          minValue: 1
          maxValue: 10
          validators:
            - {expr: $ != 3, message: Three is not allowed.}
        - {name: b, type: boolean, initial: true}
        - {name: c, type: choice, choices: [[a, Apple], [b, Banana]]}
        - {name: fl, type: flavor}
        - {name: im, type: image}
        - {name: kp, type: keypair, required: false}
        - {name: az, type: azone}
        - {name: net, type: network}
        - {name: sg, type: securitygroup, required: false}
        - {name: vol, type: volume, required: false}
        - {name: h, type: string, hidden: true, initial: secretdefault}
"#;

fn views() -> (vetro_forms::UiDefinition, Vec<FieldView>) {
    let mut sources = vetro_diag::SourceMap::new();
    let (ui, problems) = vetro_forms::parse_str("ui.yaml", UI, &mut sources);
    let ui = ui.unwrap_or_else(|| panic!("{problems:?}"));
    let fields = {
        let w = wizard(&ui);
        w.form(0).unwrap().fields
    };
    (ui, fields)
}

fn wizard(ui: &vetro_forms::UiDefinition) -> Wizard<'_> {
    let inv = Inventory {
        cloud: vetro_dsl::cloud::simulator::catalog(),
        apps: vec![],
    };
    let app = AppInfo {
        fqn: "com.example.All".into(),
        display_name: "All".into(),
    };
    Wizard::new(ui, app, inv, Limits::default(), Map::new()).unwrap()
}

fn render(f: &FieldView, v: Value, errors: &[&str]) -> String {
    let errors: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    field(f, &v, &errors).into_string()
}

fn by_name<'a>(fields: &'a [FieldView], name: &str) -> &'a FieldView {
    fields.iter().find(|f| f.name == name).unwrap()
}

#[test]
fn each_field_type_renders_its_control() {
    let (_ui, fields) = views();
    let html = |n: &str| {
        render(
            by_name(&fields, n),
            by_name(&fields, n).initial.clone(),
            &[],
        )
    };
    let s = html("s");
    assert!(
        s.contains("type=\"text\"")
            && s.contains("minlength=\"2\"")
            && s.contains("maxlength=\"5\""),
        "{s}"
    );
    assert!(
        s.contains("<label for=\"f-s\">Short name") && s.contains("Lower-case letters."),
        "{s}"
    );
    assert!(s.contains("required"), "{s}");
    assert!(html("t").contains("<textarea"));
    let pw = html("pw");
    assert_eq!(
        pw.matches("type=\"password\"").count(),
        2,
        "asked twice: {pw}"
    );
    assert!(
        pw.contains("name=\"pw-clone\"") && pw.contains("data-confirms=\"f-pw\""),
        "{pw}"
    );
    let n = html("n");
    assert!(
        n.contains("type=\"number\"") && n.contains("min=\"1\"") && n.contains("max=\"10\""),
        "{n}"
    );
    let b = html("b");
    assert!(
        b.contains("type=\"checkbox\"") && b.contains("checked"),
        "{b}"
    );
    let c = html("c");
    assert!(
        c.contains("<select") && c.contains(">Apple</option>") && c.contains("value=\"b\""),
        "{c}"
    );
    assert!(html("fl").contains(">m1.small"), "flavors from the cloud");
    assert!(
        html("im").contains("Ubuntu 22.04"),
        "images from the cloud: {}",
        html("im")
    );
    assert!(html("kp").contains("vetro-key"), "key pairs from the cloud");
    assert!(
        html("az").contains(">nova<"),
        "zones from the cloud: {}",
        html("az")
    );
    assert!(html("net").contains("<select"), "networks are a select");
    assert!(html("sg").contains("<select") || html("sg").contains("type=\"text\""));
    assert!(html("vol").contains("<select") || html("vol").contains("type=\"text\""));
    let h = html("h");
    assert!(
        h.contains("type=\"hidden\"") && h.contains("secretdefault") && !h.contains("<label"),
        "{h}"
    );
    // Every visible control has a label pointing at it.
    for f in fields.iter().filter(|f| !f.hidden) {
        let out = html(&f.name);
        assert!(
            out.contains(&format!("for=\"f-{}\"", f.name)),
            "{}: {out}",
            f.name
        );
    }
}

#[test]
fn a_password_is_never_shown_back() {
    let (_ui, fields) = views();
    let out = render(by_name(&fields, "pw"), json!("hunter2!"), &[]);
    assert!(!out.contains("hunter2"));
}

/// Submits `values` over the initial ones and returns the errors by field.
fn errors_for(changes: &[(&str, &str)]) -> Vec<(String, String, String)> {
    let (ui, fields) = views();
    let mut w = wizard(&ui);
    let mut raw: Vec<(String, String)> = vec![
        ("s".into(), "abc".into()),
        ("pw".into(), "Secret-123".into()),
        ("pw-clone".into(), "Secret-123".into()),
        ("n".into(), "5".into()),
        ("c".into(), "a".into()),
        ("im".into(), "sim-image-ubuntu-22.04".into()),
    ];
    for (k, v) in changes {
        raw.retain(|(rk, _)| rk != k);
        raw.push((k.to_string(), v.to_string()));
    }
    let get = |name: &str| {
        raw.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| {
                fields
                    .iter()
                    .find(|f| f.name == name)
                    .map(|f| vetro_dashboard::fields::choice_value(&f.initial))
                    .filter(|s| s != "null")
            })
    };
    let values = submitted(&fields, get);
    match w.submit(
        0,
        &values,
        SubmitOptions {
            confirm_passwords: true,
            reject_unknown: false,
        },
    ) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .errors
            .into_iter()
            .map(|x| (x.field.unwrap_or_default(), x.rule, x.message))
            .collect(),
    }
}

/// Changed answers, the field that must complain, and the rule.
type Case = (
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
);

#[test]
fn valid_answers_pass_and_each_validator_reports_at_its_field() {
    assert_eq!(errors_for(&[]), vec![], "the base answers are valid");
    let cases: [Case; 8] = [
        (&[("s", "")], "s", "required"),
        (&[("s", "a")], "s", "minLength"),
        (&[("s", "abcdef")], "s", "maxLength"),
        (&[("s", "ABC")], "s", "regexpValidator"),
        (&[("n", "11")], "n", "maxValue"),
        (&[("n", "0")], "n", "minValue"),
        (&[("n", "3")], "n", "validators[0]"),
        (&[("pw-clone", "other")], "pw", "confirmInput"),
    ];
    let (_ui, fields) = views();
    for (changes, field_name, rule) in cases {
        let errs = errors_for(changes);
        let hit = errs.iter().find(|(f, r, _)| f == field_name && r == rule);
        let (_, _, message) = hit
            .unwrap_or_else(|| panic!("{changes:?}: expected {field_name} {rule}, got {errs:?}"));
        // The message is rendered at the field, marked invalid.
        let out = render(by_name(&fields, field_name), Value::Null, &[message]);
        assert!(
            out.contains(&format!("id=\"f-{field_name}-error\"")),
            "{out}"
        );
        assert!(
            out.contains(&maud::html! { (message) }.into_string()),
            "{out}"
        );
        assert!(
            out.contains("aria-invalid=\"true\"") || field_name == "pw",
            "{out}"
        );
    }
    let errs = errors_for(&[("n", "x")]);
    assert!(errs.iter().any(|(f, _, _)| f == "n"), "{errs:?}");
}

#[test]
fn submitted_values_take_their_types() {
    let (_ui, fields) = views();
    let get = |name: &str| match name {
        "b" => None,
        "c" => Some("b".to_string()),
        "net" => by_name(&fields, "net")
            .choices
            .as_ref()
            .and_then(|c| c.first())
            .map(|c| vetro_dashboard::fields::choice_value(&c.value)),
        _ => None,
    };
    let v = submitted(&fields, get);
    assert_eq!(v["b"], json!(false), "an unticked box is false");
    assert_eq!(v["c"], json!("b"));
    let first_net = by_name(&fields, "net")
        .choices
        .as_ref()
        .and_then(|c| c.first())
        .map(|c| c.value.clone());
    assert_eq!(
        Some(v["net"].clone()),
        first_net,
        "a network choice keeps its JSON value"
    );
    assert_eq!(v["s"], Value::Null, "an empty box is no value");
}
