//! Malformed UI definitions: each problem reported at its line and column,
//! never a panic.

use vetro_diag::SourceMap;

fn problems(text: &str) -> Vec<(String, u32, u32)> {
    let mut sources = SourceMap::new();
    let (ui, mut found) = vetro_forms::parse_str("ui.yaml", text, &mut sources);
    if let Some(ui) = ui {
        found.extend(vetro_forms::check(&ui, &sources));
    }
    found
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| {
            (
                d.kind.to_string(),
                d.span.map_or(0, |s| s.line),
                d.span.map_or(0, |s| s.col),
            )
        })
        .collect()
}

#[test]
fn structural_problems_point_at_their_place() {
    assert_eq!(problems("[1, 2]")[0].0, "ui-structure");
    assert_eq!(
        problems("Version: 9.1\nApplication: {}\nForms: []\n")[0],
        ("ui-version".into(), 1, 10)
    );
    assert_eq!(
        problems("Version: 2\nApplication: 3\nForms: []\n")[0],
        ("ui-structure".into(), 2, 14)
    );
    assert_eq!(
        problems("Version: 2\nApplication: {}\nForms: {a: 1}\n")[0].0,
        "ui-structure"
    );
    assert_eq!(problems("Version: 2\nForms: []\n")[0].0, "ui-structure");
    let p = problems("Version: 2\nApplication: {}\nForms:\n  - f:\n      fields:\n        - name: a\n          type: string\n        - name: a\n          type: string\n");
    assert_eq!(p[0], ("ui-duplicate".into(), 8, 11));
    let p = problems("Version: 2\nApplication: {}\nForms:\n  - f:\n      fields:\n        - name: a\n          type: string\n          minLength: many\n");
    assert_eq!(p[0], ("ui-attribute".into(), 8, 22));
    let p = problems("Version: 2\nApplication: {}\nForms:\n  - f:\n      fields:\n        - name: a\n          type: string\n          regexpValidator: '(['\n");
    assert_eq!(p[0].0, "ui-validator");
    let p = problems("Version: 2\nApplication: {}\nForms:\n  - f:\n      fields:\n        - name: a\n          type: string\n          validators:\n            - message: no expr\n");
    assert_eq!(p[0].0, "ui-validator");
    assert_eq!(problems("a: [\n")[0].0, "yaml-syntax");
}

#[test]
fn references_are_checked() {
    let p = problems("Version: 2.2\nTemplates: {t: {x: 1}}\nApplication:\n  ?: {type: A}\n  a: $.f.b\n  b: ref(nope)\n  c: $missing\n  d: $.workflowManagement.application_name\n  e: $t\nForms:\n  - f:\n      fields:\n        - {name: a, type: string}\n");
    let kinds: Vec<_> = p.iter().map(|(k, l, c)| (k.as_str(), *l, *c)).collect();
    assert_eq!(
        kinds,
        [
            ("ui-reference", 5, 10),
            ("ui-reference", 6, 10),
            ("ui-reference", 7, 6)
        ]
    );
}
