//! The YAML layer on arbitrary bytes: strict decoding, loading in both YAML
//! versions, JSON and YAML output. Loading either succeeds or reports
//! diagnostics, never a panic; what it emits loads back to the same value,
//! and the JSON fast path agrees with the YAML loader whenever it answers.

#![no_main]

use libfuzzer_sys::fuzz_target;
use vetro_yaml::{
    load_str, parse_json_exact, to_json, to_yaml_string, LoadOptions, Node, SourceMap, YamlVersion,
};

fn options(version: YamlVersion) -> LoadOptions {
    LoadOptions {
        version,
        // Small enough that an alias bomb ends quickly.
        max_alias_nodes: 10_000,
        ..LoadOptions::default()
    }
}

fn load(text: &str, opts: &LoadOptions) -> Result<Vec<Node>, Vec<vetro_yaml::Diagnostic>> {
    let mut sources = SourceMap::new();
    let id = sources.add("fuzz.yaml", text);
    load_str(&sources, id, opts)
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = vetro_yaml::decode_strict_at(bytes) else {
        return;
    };
    for version in [YamlVersion::V1_1, YamlVersion::V1_2] {
        let opts = options(version);
        let Ok(docs) = load(&text, &opts) else {
            continue;
        };
        for doc in &docs {
            let value = to_json(doc);
            let emitted = to_yaml_string(doc);
            let again = load(&emitted, &opts)
                .unwrap_or_else(|e| panic!("emitted YAML does not load: {e:?}\n{emitted}"));
            assert_eq!(again.len(), 1, "emitted YAML is one document:\n{emitted}");
            assert_eq!(to_json(&again[0]), value, "emitted:\n{emitted}");
        }
        // Data files starting with a bracket take the fast path (load_data).
        let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
        if version == YamlVersion::V1_1 && (start.starts_with('{') || start.starts_with('[')) {
            if let (Some(fast), Some(first)) = (parse_json_exact::<Node>(start), docs.first()) {
                assert_eq!(to_json(&fast), to_json(first), "JSON fast path differs");
            }
        }
    }
});
