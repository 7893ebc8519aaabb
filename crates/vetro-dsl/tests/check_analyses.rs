//! `check` analyses over small fixture packages: unknown methods called on
//! the receiver, unreachable statements, contract syntax and named classes.

use std::path::Path;
use vetro_diag::{Diagnostic, Severity, SourceMap};
use vetro_dsl::check;
use vetro_dsl::package::Package;

fn analyse(names: &[&str]) -> (SourceMap, Vec<Diagnostic>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check");
    let mut sources = SourceMap::new();
    let packages: Vec<Package> = names
        .iter()
        .map(|n| Package::load_dir(&root.join(n), &mut sources))
        .collect();
    for p in &packages {
        assert!(p.problems.is_empty(), "{:?}", p.problems);
    }
    let problems = check::analysis_problems(&packages);
    (sources, problems)
}

/// (kind, severity, file name, line, column) of each diagnostic, sorted.
fn located(sources: &SourceMap, diags: &[Diagnostic]) -> Vec<(String, Severity, String, u32, u32)> {
    let mut out: Vec<_> = diags
        .iter()
        .map(|d| {
            let s = d.span.expect("every finding has a span");
            let file = sources
                .name(s.file)
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string();
            (d.kind.to_string(), d.severity, file, s.line, s.col)
        })
        .collect();
    out.sort_by(|a, b| (&a.2, a.3, a.4, &a.0).cmp(&(&b.2, b.3, b.4, &b.0)));
    out
}

fn of_kind<'a>(diags: &'a [Diagnostic], kind: &str) -> Vec<&'a Diagnostic> {
    diags.iter().filter(|d| d.kind == kind).collect()
}

#[test]
fn unknown_methods_on_the_receiver_are_warnings() {
    let (sources, diags) = analyse(&["findings"]);
    let found = of_kind(&diags, "unknown-method");
    let mut names: Vec<&str> = found
        .iter()
        .map(|d| d.message.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    names.sort();
    // `describe` comes from Base, Orphan's parent is unknown.
    assert_eq!(names, ["measure", "paint"]);
    assert!(found.iter().all(|d| d.severity == Severity::Warning));
    let at: Vec<_> = located(&sources, &diags)
        .into_iter()
        .filter(|d| d.0 == "unknown-method")
        .map(|d| (d.2, d.3, d.4))
        .collect();
    assert_eq!(
        at,
        [
            ("Shapes.yaml".into(), 20, 9),
            ("Shapes.yaml".into(), 21, 17)
        ]
    );
}

#[test]
fn statements_after_a_jump_are_unreachable() {
    let (sources, diags) = analyse(&["findings"]);
    let at: Vec<_> = located(&sources, &diags)
        .into_iter()
        .filter(|d| d.0 == "unreachable-code")
        .map(|d| (d.1, d.3, d.4))
        .collect();
    assert_eq!(
        at,
        [
            (Severity::Warning, 22, 9),
            (Severity::Warning, 31, 17),
            (Severity::Warning, 34, 9)
        ]
    );
}

#[test]
fn contracts_call_known_functions_and_name_known_classes() {
    let (sources, diags) = analyse(&["findings"]);
    let syntax = of_kind(&diags, "contract-syntax");
    let mut msgs: Vec<&str> = syntax.iter().map(|d| d.message.as_str()).collect();
    msgs.sort();
    assert_eq!(msgs.len(), 4, "{msgs:?}");
    // A string that starts like an expression but does not parse.
    assert!(msgs[0].starts_with("contract $.int( does not parse"));
    assert_eq!(
        msgs[1..],
        [
            "dictionary contract has 2 expression keys; at most one is allowed",
            "unknown contract function integer()",
            "unknown contract function positive()"
        ]
    );
    assert!(syntax.iter().all(|d| d.severity == Severity::Error));
    let lines: Vec<u32> = located(&sources, &diags)
        .into_iter()
        .filter(|d| d.0 == "contract-syntax")
        .map(|d| d.3)
        .collect();
    assert_eq!(lines, [8, 17, 39, 46]);
    let classes = of_kind(&diags, "unknown-class");
    assert_eq!(classes.len(), 1);
    assert!(classes[0]
        .message
        .contains("org.example.findings.NoSuchThing"));
    assert_eq!(classes[0].severity, Severity::Warning);
}

#[test]
fn calls_of_functions_nothing_defines_are_warnings_at_the_call() {
    let (sources, diags) = analyse(&["findings"]);
    let found = of_kind(&diags, "undefined-function");
    assert!(found.iter().all(|d| d.severity == Severity::Warning));
    let mut names: Vec<&str> = found
        .iter()
        .map(|d| d.message.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    names.sort();
    // Library functions (`sum`, `str`, `len`), names `def()` gives, method
    // names of any class (`area`, called as a function) and the test
    // framework's functions are defined; `$x.anything()` is a method call.
    assert_eq!(names, ["isGood()", "tripple()", "tripple()"], "{found:?}");
    let at: Vec<_> = located(&sources, &diags)
        .into_iter()
        .filter(|d| d.0 == "undefined-function")
        .map(|d| (d.2, d.3, d.4))
        .collect();
    // At the name in a scalar written as is; at the scalar's start in one
    // folded over two lines. A quoted scalar is a string, not YAQL.
    assert_eq!(
        at,
        [
            ("Calls.yaml".into(), 11, 31),
            ("Calls.yaml".into(), 12, 45),
            ("Calls.yaml".into(), 20, 13)
        ]
    );
}

#[test]
fn correct_code_gives_no_findings() {
    let (sources, diags) = analyse(&["clean"]);
    assert!(diags.is_empty(), "{:?}", located(&sources, &diags));
}

#[test]
fn findings_carry_positions_in_json() {
    let (sources, diags) = analyse(&["findings"]);
    for d in &diags {
        let v = check::problem_json(&sources, d);
        assert!(v["file"].as_str().is_some_and(|f| f.ends_with(".yaml")));
        assert!(v["line"].as_u64().is_some_and(|l| l > 0));
        assert!(v["column"].as_u64().is_some_and(|c| c > 0));
    }
}
