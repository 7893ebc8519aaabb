//! Loading behaviour: YAML 1.1 meaning, merge keys, spans, and every kind of bad input.

use vetro_yaml::{load_str, to_json, LoadOptions, Node, NodeKind, SourceMap, YamlVersion};

fn load_with(text: &str, opts: &LoadOptions) -> Result<Vec<Node>, Vec<vetro_yaml::Diagnostic>> {
    let mut sources = SourceMap::new();
    let id = sources.add("test.yaml", text);
    load_str(&sources, id, opts)
}

fn load(text: &str) -> Node {
    let docs = load_with(text, &LoadOptions::default()).expect("valid YAML");
    docs.into_iter().next().expect("one document")
}

fn json(text: &str) -> serde_json::Value {
    to_json(&load(text))
}

fn error_kinds(text: &str) -> Vec<String> {
    match load_with(text, &LoadOptions::default()) {
        Ok(_) => Vec::new(),
        Err(diags) => diags.into_iter().map(|d| d.kind.to_string()).collect(),
    }
}

#[test]
fn yaml_11_booleans_and_numbers() {
    let v = json("a: yes\nb: Off\nc: 017\nd: 0x1F\ne: 1_000\nf: .inf\ng: ~\nh: 2001-12-14\n");
    assert_eq!(v["a"], true);
    assert_eq!(v["b"], false);
    assert_eq!(v["c"], 15);
    assert_eq!(v["d"], 31);
    assert_eq!(v["e"], 1000);
    assert!(v["f"].is_null(), "non-finite floats have no JSON form");
    assert!(v["g"].is_null());
    assert_eq!(v["h"], "2001-12-14");
}

#[test]
fn yaml_12_mode_uses_the_core_schema() {
    let opts = LoadOptions {
        version: YamlVersion::V1_2,
        ..LoadOptions::default()
    };
    let docs = load_with("a: yes\nb: 0o17\nc: 017\n", &opts).unwrap();
    let v = to_json(&docs[0]);
    assert_eq!(v["a"], "yes");
    assert_eq!(v["b"], 15);
    assert_eq!(v["c"], 17);
}

#[test]
fn quoted_and_tagged_scalars_stay_strings() {
    let root = load("a: 'yes'\nb: !!str 12\nc: !yaql $.x\nd: \"1.5\"\n");
    let map = root.as_map().unwrap();
    assert_eq!(map.get("a").unwrap().as_str(), Some("yes"));
    assert_eq!(map.get("b").unwrap().as_str(), Some("12"));
    let c = map.get("c").unwrap();
    assert_eq!(c.as_str(), Some("$.x"));
    assert_eq!(c.tag.as_deref(), Some("!yaql"));
    assert_eq!(map.get("d").unwrap().as_str(), Some("1.5"));
}

#[test]
fn merge_keys_explicit_keys_win() {
    let v = json("base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  z: 4\n");
    assert_eq!(v["m"], serde_json::json!({"x": 1, "y": 3, "z": 4}));
    let keys: Vec<_> = v["m"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["x", "y", "z"]);
}

#[test]
fn merge_list_earlier_mappings_win() {
    let v = json("a: &a {x: 1}\nb: &b {x: 2, y: 3}\nm:\n  <<: [*a, *b]\n");
    assert_eq!(v["m"], serde_json::json!({"x": 1, "y": 3}));
}

#[test]
fn merge_of_a_scalar_is_an_error() {
    assert_eq!(error_kinds("a: &a 1\nm:\n  <<: *a\n"), ["merge-value"]);
}

#[test]
fn spans_point_at_keys_and_values() {
    let root = load("first: 1\nsecond:\n  - [a, b]\n");
    let (key, value) = root.as_map().unwrap().entry("second").unwrap();
    assert_eq!((key.span.line, key.span.col), (2, 1));
    assert_eq!((value.span.line, value.span.col), (3, 3));
    let inner = &value.as_seq().unwrap()[0].as_seq().unwrap()[1];
    assert_eq!((inner.span.line, inner.span.col), (3, 9));
    assert_eq!(&"first: 1\nsecond:\n  - [a, b]\n"[inner.span.range()], "b");
}

#[test]
fn spans_count_characters_not_bytes_for_columns() {
    let text = "é: ü\nk: v\n";
    let root = load(text);
    let (key, value) = root.as_map().unwrap().entry("k").unwrap();
    assert_eq!(&text[key.span.range()], "k");
    assert_eq!(&text[value.span.range()], "v");
    let (_, u) = &root.as_map().unwrap().entries[0];
    assert_eq!(u.span.col, 4);
}

#[test]
fn duplicate_keys_name_both_positions() {
    let err = load_with("a: 1\nb: 2\na: 3\n", &LoadOptions::default()).unwrap_err();
    assert_eq!(err.len(), 1);
    assert_eq!(err[0].kind, "duplicate-key");
    assert_eq!(err[0].span.unwrap().line, 3);
    assert_eq!(err[0].related[0].span.line, 1);
}

#[test]
fn duplicate_keys_may_be_allowed_last_wins() {
    let opts = LoadOptions {
        allow_duplicate_keys: true,
        ..LoadOptions::default()
    };
    let docs = load_with("a: 1\nb: 2\na: 3\n", &opts).unwrap();
    assert_eq!(to_json(&docs[0]), serde_json::json!({"a": 3, "b": 2}));
}

#[test]
fn non_string_keys_keep_their_type() {
    let root = load("1: one\n1.5: x\n? [a, b]\n: pair\n");
    let kinds: Vec<_> = root
        .as_map()
        .unwrap()
        .keys()
        .map(|k| k.type_name())
        .collect();
    assert_eq!(kinds, ["integer", "float", "sequence"]);
    assert!(error_kinds("1: a\n1.0: b\n").contains(&"duplicate-key".to_string()));
}

#[test]
fn multi_document_streams() {
    let docs = load_with("a: 1\n---\nb: 2\n...\n---\n- 3\n", &LoadOptions::default()).unwrap();
    assert_eq!(docs.len(), 3);
    assert!(load_with("", &LoadOptions::default()).unwrap().is_empty());
}

#[test]
fn bad_input_gets_positioned_errors() {
    for (text, kind) in [
        ("a: [1, 2\n", "yaml-syntax"),
        ("a: 'unclosed\n", "yaml-syntax"),
        ("a:\n\t- b\n", "yaml-syntax"),
        ("a: *missing\n", "yaml-syntax"),
        ("a: &x [*x]\n", "recursive-alias"),
        ("a: !!int abc\n", "bad-tagged-value"),
    ] {
        let err = load_with(text, &LoadOptions::default()).unwrap_err();
        assert_eq!(err[0].kind, kind, "{text:?}");
        assert!(err[0].span.is_some(), "{text:?}");
    }
}

#[test]
fn billion_laughs_is_refused() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        let items = [prev.as_str(); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{items}]\n"));
    }
    assert_eq!(error_kinds(&text), ["alias-limit"]);
}

#[test]
fn a_million_aliases_are_refused_quickly() {
    let mut text = String::from("x: &x [1, 2]\nl:\n");
    for _ in 0..600_000 {
        text.push_str("- *x\n");
    }
    assert_eq!(error_kinds(&text), ["alias-limit"]);
}

#[test]
fn deep_nesting_is_refused() {
    // The parser's own nesting limit or ours, whichever comes first.
    let text = "[".repeat(100_000);
    let kinds = error_kinds(&text);
    assert!(
        kinds == ["depth-limit"] || kinds == ["yaml-syntax"],
        "{kinds:?}"
    );
    let text = "- ".repeat(600) + "x\n";
    assert_eq!(error_kinds(&text), ["depth-limit"]);
}

#[test]
fn folded_scalar_at_end_of_stream_has_no_added_break() {
    assert_eq!(json("d: >\n  text")["d"], "text");
    assert_eq!(json("d: >\n  text\n")["d"], "text\n");
}

#[test]
fn quoted_continuation_lines_may_be_less_indented() {
    assert_eq!(json("a:\n  b: \"one\ntwo\"\n")["a"]["b"], "one two");
}

#[test]
fn integers_past_the_digit_limit_are_refused() {
    let limit = vetro_pycompat::int::MAX_INT_DIGITS;
    let long = "7".repeat(limit + 1);
    for (text, col) in [
        (format!("a: {long}\n"), 4),
        (format!("a: -{long}\n"), 4),
        (format!("a: !!int {long}\n"), 4),
        (format!("{{\"a\": {long}}}"), 7),
        // About 1,083,800 decimal digits.
        (format!("a: 0x{}\n", "f".repeat(900_000)), 4),
    ] {
        let err = load_with(&text, &LoadOptions::default()).unwrap_err();
        assert_eq!(err[0].kind, "int-too-long");
        assert_eq!(err[0].span.map(|s| (s.line, s.col)), Some((1, col)));
        assert!(
            err[0].message.contains("over the limit of 1000000"),
            "{}",
            err[0].message
        );
    }
    // At the limit an integer is kept; leading zeros do not count, and
    // quoted digits are a string.
    let text = format!(
        "a: {}\nb: 0x{}ff\nc: '{long}'\n",
        &long[1..],
        "0".repeat(2 * limit)
    );
    let root = load(&text);
    let kind = |key| &root.get(key).unwrap().kind;
    assert!(matches!(kind("a"), NodeKind::BigInt(d) if *d == long[1..]));
    assert_eq!(*kind("b"), NodeKind::Int(255));
    assert!(matches!(kind("c"), NodeKind::Str(s) if *s == long));
}

#[test]
fn long_hexadecimal_integers_are_converted_in_time() {
    // 800,000 hex digits are 963,296 decimal digits; converting them digit
    // by digit took minutes.
    let start = std::time::Instant::now();
    let root = load(&format!("a: 0x{}\n", "f".repeat(800_000)));
    let NodeKind::BigInt(decimal) = &root.get("a").unwrap().kind else {
        panic!("not a big integer");
    };
    assert_eq!(decimal.len(), 963_296);
    assert!(
        decimal.ends_with("9375"),
        "{}",
        &decimal[decimal.len() - 8..]
    );
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}

#[test]
fn big_integers_are_kept_exactly() {
    let root = load("n: 123456789012345678901234567890\n");
    assert_eq!(
        root.get("n").unwrap().kind,
        NodeKind::BigInt("123456789012345678901234567890".into())
    );
}
