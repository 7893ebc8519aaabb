//! The parser never panics, and checking a text (`check`) agrees with
//! parsing it: proptest over arbitrary strings and over strings built from
//! YAQL tokens, with the built-in operators and with a custom table. `cargo test -p vetro-yaql-syntax --release --test fuzz
//! -- --ignored` runs the long campaign (set `YAQL_FUZZ_CASES`, default 1,000,000).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use vetro_yaql_syntax::operators::{Fixity, OperatorSpec, OperatorTable};
use vetro_yaql_syntax::parser::{check, parse, parse_with_operators, ParserOptions};

const TOKENS: &[&str] = &[
    "$", "$x", "$1", "1", "2.5", "'s'", "\"d\"", "`b`", "a", "f(", "(", ")", "[", "]", "{", "}",
    ",", ".", "?.", "+", "-", "*", "/", "mod", "=", "!=", "<", ">=", "and", "or", "not", "in",
    "->", "=>", "=~", ":", "is", "null", "true", " ", "\\", "'", "#", "@", "~", "<>", "!", "xor",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..24).prop_map(|v| v.concat())
}

/// A table with operators of every fixity next to some built-in ones.
fn custom_table() -> OperatorTable {
    let ops: [(&str, Fixity, usize); 12] = [
        ("~", Fixity::Prefix, 0),
        (".", Fixity::Left, 1),
        ("[]", Fixity::Left, 2),
        ("-", Fixity::Prefix, 3),
        ("!", Fixity::Suffix, 4),
        ("*", Fixity::Left, 5),
        ("<>", Fixity::Left, 6),
        ("-", Fixity::Left, 7),
        ("=", Fixity::Left, 8),
        ("not", Fixity::Prefix, 9),
        ("xor", Fixity::Right, 10),
        ("->", Fixity::Right, 11),
    ];
    let specs: Vec<OperatorSpec> = ops
        .iter()
        .map(|(symbol, fixity, group)| OperatorSpec {
            symbol: symbol.to_string(),
            fixity: *fixity,
            group: *group,
            alias: None,
        })
        .collect();
    OperatorTable::new(&specs, Some("=>")).unwrap()
}

type Outcome = std::result::Result<(), vetro_yaql_syntax::SyntaxError>;

fn outcome<T>(r: vetro_yaql_syntax::error::Result<T>) -> Outcome {
    r.map(|_| ())
}

fn all_modes(s: &str) {
    for legacy in [false, true] {
        for colon in [false, true] {
            let opts = ParserOptions {
                legacy,
                allow_delegates: colon,
                colon,
                is_operator: colon,
            };
            let tree = outcome(parse(s, opts));
            assert_eq!(outcome(check(s, opts, None)), tree, "{s:?} {opts:?}");
        }
    }
    let table = custom_table();
    let opts = ParserOptions::default();
    let tree = outcome(parse_with_operators(s, opts, &table));
    assert_eq!(outcome(check(s, opts, Some(&table))), tree, "{s:?} (table)");
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
