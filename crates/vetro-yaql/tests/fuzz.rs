//! The parser never panics: proptest over arbitrary strings and over
//! strings built from YAQL tokens. `cargo test -p vetro-yaql --release --test fuzz
//! -- --ignored` runs the long campaign (set `YAQL_FUZZ_CASES`, default 1,000,000).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use vetro_yaql::parser::{parse, ParserOptions};

const TOKENS: &[&str] = &[
    "$", "$x", "$1", "1", "2.5", "'s'", "\"d\"", "`b`", "a", "f(", "(", ")", "[", "]", "{", "}",
    ",", ".", "?.", "+", "-", "*", "/", "mod", "=", "!=", "<", ">=", "and", "or", "not", "in",
    "->", "=>", "=~", ":", "is", "null", "true", " ", "\\", "'", "#", "@", "~",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..24).prop_map(|v| v.concat())
}

fn all_modes(s: &str) {
    for legacy in [false, true] {
        for colon in [false, true] {
            let _ = parse(
                s,
                ParserOptions {
                    legacy,
                    allow_delegates: colon,
                    colon,
                    is_operator: colon,
                },
            );
        }
    }
}

fn campaign(cases: u32) {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&any::<String>(), |s| {
            all_modes(&s);
            Ok(())
        })
        .unwrap();
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&token_soup(), |s| {
            all_modes(&s);
            Ok(())
        })
        .unwrap();
}

#[test]
fn parser_never_panics_quick() {
    campaign(2_000);
}

#[test]
fn regression_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-corpus");
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            all_modes(line);
        }
    }
    // Deep nesting must be refused, not overflow the stack (unoptimised
    // builds use large frames, so give the parser the stack a host thread has
    // in release builds' worst case).
    std::thread::Builder::new()
        .stack_size(32 * 1024 * 1024)
        .spawn(|| {
            all_modes(&"(".repeat(100_000));
            all_modes(&"-".repeat(100_000));
            all_modes(&"[".repeat(100_000));
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
#[ignore]
fn parser_never_panics_long() {
    let n: u32 = std::env::var("YAQL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    campaign(n / 2);
}
