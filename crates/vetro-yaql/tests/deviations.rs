//! Behaviours where vetro used to differ from the reference implementation,
//! each derived from the reference's source: declared call forms, Python
//! `re` replacement templates, slicing with negative starts or lengths past
//! the end, iterables that are not iterators, and Python's `round`.

use vetro_yaql::{data, Engine, EngineOptions, Error, ErrorKind, Value};

fn engine() -> Engine {
    Engine::new(EngineOptions {
        allow_delegates: true,
        delegates: true,
        ..Default::default()
    })
}

fn run(expr: &str) -> Result<String, Error> {
    engine()
        .eval_str(expr, Value::Null)
        .map(|v| data::to_json_string(&v, false))
}

fn ok(expr: &str, want: &str) {
    assert_eq!(run(expr), Ok(want.to_string()), "{expr}");
}

fn err(expr: &str, kind: ErrorKind) -> String {
    match run(expr) {
        Err(e) => {
            assert_eq!(e.kind, kind, "{expr}: {}", e.message);
            e.into_message()
        }
        Ok(v) => panic!("{expr}: expected {kind:?}, got {v}"),
    }
}

#[test]
fn substring_counts_a_negative_start_from_the_end_once() {
    ok("'abcd'.substring(1)", r#""bcd""#);
    ok("'abcd'.substring(1, 2)", r#""bc""#);
    ok("'abcd'.substring(-1, 2)", r#""d""#);
    ok("'abcd'.substring(-3)", r#""bcd""#);
    // start -10 + 4 = -6, then Python's slice [-6:2].
    ok("'abcd'.substring(-10, 8)", r#""ab""#);
    ok("'abcd'.substring(2, 10)", r#""cd""#);
    ok("'abcd'.substring(1, -5)", r#""bcd""#);
    ok("'abcd'.substring(7)", r#""""#);
}

#[test]
fn find_past_the_end_finds_nothing() {
    ok("'abc'.indexOf('', 3)", "3");
    ok("'abc'.indexOf('', 4)", "-1");
    ok("'abc'.lastIndexOf('', 4)", "-1");
    ok("'abcabc'.indexOf('c', -2, 10)", "5");
    ok("'abcabc'.indexOf('a', 1, 2)", "-1");
    ok("'abcabc'.lastIndexOf('b', 0, -1)", "4");
}

#[test]
fn replacement_templates_are_checked_before_matching() {
    ok(r"regex('(b)').replace('abc', '[\\1]')", r#""a[b]c""#);
    ok(
        r"regex('(?P<x>b)').replace('abc', '<\\g<x>\\g<0>>')",
        r#""a<bb>c""#,
    );
    let m = err(r"regex('(b)').replace('abc', '\\2')", ErrorKind::Regex);
    assert_eq!(m, "invalid group reference 2 at position 1");
    // Nothing matches, and the template is still refused.
    let m = err(r"regex('(b)').replace('xyz', 'a\\g<3>')", ErrorKind::Regex);
    assert_eq!(m, "invalid group reference 3 at position 4");
    let m = err(
        r"regex('(b)').replace('abc', '\\g<name>')",
        ErrorKind::Index,
    );
    assert_eq!(m, "unknown group name 'name'");
    let m = err(r"'abc'.replace(regex('b'), '\\q')", ErrorKind::Regex);
    assert_eq!(m, r"bad escape \q at position 0");
}

#[test]
fn order_by_results_are_iterables_not_iterators() {
    err("[3, 1, 2].orderBy($).len()", ErrorKind::NoMatchingMethod);
    ok("[3, 1, 2].orderBy($).count()", "3");
    ok("[3, 1, 2].select($).len()", "3");
    ok("[3, 1, 2].orderBy($).thenBy($).toList()", "[1,2,3]");
}

#[test]
fn method_only_functions_are_not_functions() {
    ok("[1, 2].zip([3, 4])", "[[1,3],[2,4]]");
    err("zip([1, 2], [3, 4])", ErrorKind::NoFunction);
    ok("[1].zipLongest([3, 4])", "[[1,3],[null,4]]");
    err("zipLongest([1], [3, 4])", ErrorKind::NoFunction);
}

#[test]
fn round_is_pythons() {
    ok("round(2.675, 2)", "2.67");
    ok("round(0.125, 2)", "0.12");
    ok("round(0.375, 2)", "0.38");
    ok("round(2.5)", "2.0");
    ok("round(3.5)", "4.0");
    ok("round(-0.5)", "-0.0");
    ok("round(1250.0, -2)", "1200.0");
    ok("round(1350.0, -2)", "1400.0");
    ok("round(1250.5, -2)", "1300.0");
    ok("round(-1250.5, -2)", "-1300.0");
    ok("round(float('1e300'), 400)", "1e+300");
    ok("round(123.0, -400)", "0.0");
    ok("round(1255, -1)", "1260");
    err("round(float('1.7e308'), -308)", ErrorKind::Overflow);
}
