//! kwalify grammars and documents as bytes: the input up to the first NUL is
//! a grammar, the rest a document (without a NUL, the input is a document
//! checked against the bundled TOSCA grammar). The grammar compiles or is
//! refused with diagnostics; validation reports problems; never a panic,
//! and validating the rewritten document again changes nothing more.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use vetro_kwalify::{Grammar, NoHooks};
use vetro_yaml::{load_str, to_json, LoadOptions, SourceMap};

fn tosca_grammar() -> &'static Grammar {
    static G: OnceLock<Grammar> = OnceLock::new();
    G.get_or_init(|| {
        Grammar::load(
            "tosca.grammar",
            vetro_tosca::BUNDLED_GRAMMAR,
            &mut SourceMap::new(),
        )
        .expect("the bundled grammar compiles")
    })
}

fn check(grammar: &Grammar, document: &[u8]) {
    let Ok(text) = vetro_yaml::decode_strict_at(document) else {
        return;
    };
    let mut sources = SourceMap::new();
    let id = sources.add("doc.yaml", text);
    let Ok(docs) = load_str(&sources, id, &LoadOptions::default()) else {
        return;
    };
    for mut doc in docs {
        let problems = grammar.validate(&mut doc, &mut NoHooks);
        let _: Vec<_> = problems.iter().map(|p| p.to_diagnostic()).collect();
        // Short forms are rewritten into their canonical shape: a document
        // that validated is valid again after the rewrite, and stays put.
        if problems.is_empty() {
            let rewritten = to_json(&doc);
            let again = grammar.validate(&mut doc, &mut NoHooks);
            assert!(
                again.is_empty(),
                "the rewritten document is invalid: {again:?}"
            );
            assert_eq!(
                to_json(&doc),
                rewritten,
                "a second rewrite changed the document"
            );
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    match bytes.iter().position(|&b| b == 0) {
        None => check(tosca_grammar(), bytes),
        Some(at) => {
            let mut sources = SourceMap::new();
            if let Ok(grammar) = Grammar::load("fuzz.grammar", &bytes[..at], &mut sources) {
                check(&grammar, &bytes[at + 1..]);
            }
        }
    }
});
