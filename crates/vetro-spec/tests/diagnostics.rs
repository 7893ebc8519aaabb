//! Golden tests of plugin.spec errors as users see them: rendered text
//! (message, position, excerpt) and JSON.

use vetro_diag::{render_json, render_text, ColorChoice, SourceMap};
use vetro_spec::plugin::spec::load_plugin;

const HEAD: &str = "config:\n  plugin_type: test\nsubparsers:\n  demo:\n    description: A demo\n    groups:\n      - title: Main\n        options:\n";

const BAD: &[(&str, &str)] = &[
    ("unknown_type", "          a: {type: Valu}\n"),
    ("duplicate_short", "          a: {type: Value}\n          a2: {type: Value, short: x}\n          b: {type: Value, short: x}\n"),
    ("help_option", "          help: {type: Value}\n"),
    ("short_h", "          a: {type: Value, short: h}\n"),
    ("bad_condition", "          a: {type: Value, required_when: \"a=b\"}\n"),
];

#[test]
fn spec_errors_text_and_json() {
    let mut text = String::new();
    let mut json = Vec::new();
    for (label, options) in BAD {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("plugin.spec"), format!("{HEAD}{options}")).unwrap();
        std::fs::write(dir.path().join("main.yml"), "- hosts: localhost\n").unwrap();
        let mut sources = SourceMap::new();
        let err = match load_plugin(dir.path(), &mut sources) {
            Err(e) => e,
            Ok(_) => panic!("{label}: accepted"),
        };
        let prefix = format!("{}/", dir.path().display());
        let diag = [err.to_diagnostic()];
        text += &format!(
            "# {label}\n{}\n",
            render_text(&sources, &diag, ColorChoice::Never).replace(&prefix, "")
        );
        let j = serde_json::to_string(&render_json(&sources, &diag))
            .unwrap()
            .replace(&prefix, "");
        json.push(serde_json::from_str::<serde_json::Value>(&j).unwrap());
    }
    insta::assert_snapshot!("spec_errors_text", text);
    insta::assert_snapshot!(
        "spec_errors_json",
        serde_json::to_string_pretty(&json).unwrap()
    );
}
