//! Property tests: the loader never panics, and emitted YAML loads back to the same value.

use proptest::prelude::*;
use vetro_diag::Span;
use vetro_yaml::{
    from_json, load_str, to_json, to_yaml_string, LoadOptions, SourceMap, YamlVersion,
};

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1.0e12f64..1.0e12).prop_map(serde_json::Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(serde_json::Value::from),
        "\\PC{0,12}".prop_map(serde_json::Value::from),
        prop_oneof![
            Just("yes"),
            Just("No"),
            Just("~"),
            Just("017"),
            Just("1:30"),
            Just("<<"),
            Just("- a"),
            Just("a: b"),
            Just(" x "),
            Just("#c"),
            Just("0o17"),
            Just("1e3"),
            Just(".5"),
            Just("a\nb"),
            Just("\"q\""),
            Just("null"),
            Just("")
        ]
        .prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-z<>:~ ]{0,6}", inner), 0..6)
                .prop_map(|pairs| { serde_json::Value::Object(pairs.into_iter().collect()) }),
        ]
    })
}

fn reload(text: &str, version: YamlVersion) -> serde_json::Value {
    let mut sources = SourceMap::new();
    let id = sources.add("emitted.yaml", text);
    let opts = LoadOptions {
        version,
        ..LoadOptions::default()
    };
    let docs = load_str(&sources, id, &opts)
        .unwrap_or_else(|e| panic!("emitted YAML does not load: {e:?}\n{text}"));
    assert_eq!(docs.len(), 1, "{text}");
    to_json(&docs[0])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn emitted_yaml_round_trips(value in json_value()) {
        let text = to_yaml_string(&from_json(&value, Span::default()));
        for version in [YamlVersion::V1_1, YamlVersion::V1_2] {
            prop_assert_eq!(&reload(&text, version), &value, "{}", text);
        }
    }

    #[test]
    fn loader_never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        let mut sources = SourceMap::new();
        let id = sources.add("fuzz.yaml", text.as_str());
        let _ = load_str(&sources, id, &LoadOptions::default());
    }

    #[test]
    fn loader_never_panics_on_yamlish_text(text in "[-:?&*!|>'\"{}\\[\\],# \\n\\ta-c0-9<~.]{0,120}") {
        let mut sources = SourceMap::new();
        let id = sources.add("fuzz.yaml", text.as_str());
        let _ = load_str(&sources, id, &LoadOptions::default());
    }
}

/// YAML limits implicit keys (`key: value`) to 1024 characters: a longer key,
/// in block or flow style, is written as an explicit `? key` so that the
/// output loads again (found by fuzzing: a 1,000-character key with control
/// characters, double-quoted, did not).
#[test]
fn long_keys_are_written_explicitly() {
    for key in ["k".repeat(1500), "\u{12}".repeat(300), "a b".repeat(400)] {
        let value = serde_json::json!({
            key.as_str(): null,
            "short": {key.as_str(): [1, {key.as_str(): "v"}]},
            "list": [{key.as_str(): 2}, {"x": 1, key.as_str(): 3}],
        });
        let text = to_yaml_string(&from_json(&value, Span::default()));
        for version in [YamlVersion::V1_1, YamlVersion::V1_2] {
            assert_eq!(reload(&text, version), value, "{text}");
        }
    }
}

fn load_one(text: &str) -> Result<vetro_yaml::Node, Vec<vetro_yaml::Diagnostic>> {
    let mut sources = SourceMap::new();
    let id = sources.add("nested.yaml", text);
    load_str(&sources, id, &LoadOptions::default()).map(|mut docs| docs.remove(0))
}

/// Flow collections nest as deep as block ones: the emitter writes a
/// collection key in flow style, so a block document of keys nested 300 deep
/// was written as flow YAML that did not load (found by fuzzing).
#[test]
fn flow_collections_nest_as_deep_as_block_ones() {
    let block = format!("{}k", "? ".repeat(300));
    let doc = load_one(&block).expect("block keys nested 300 deep load");
    let text = to_yaml_string(&doc);
    let again = load_one(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    assert_eq!(to_json(&again), to_json(&doc));

    let flow = format!("{}{}", "[".repeat(500), "]".repeat(500));
    assert!(load_one(&flow).is_ok());
    let deeper = format!("{}{}", "[".repeat(600), "]".repeat(600));
    let errors = load_one(&deeper).unwrap_err();
    assert_eq!(errors[0].kind, "depth-limit", "{errors:?}");
}
