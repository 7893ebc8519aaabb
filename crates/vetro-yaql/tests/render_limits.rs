//! Strings built in one call stay within the evaluation's memory limit: the
//! `str()` family of a value sharing its containers (a DAG that is a huge
//! tree written out), `format()` widths and precisions, growing `replace()`,
//! `join`, `concat`, regex replacements, and splits into many pieces all fail
//! with the memory-limit error before they allocate, and fast.

use std::time::{Duration, Instant};
use vetro_yaql::value::Render;
use vetro_yaql::{data, Engine, EngineOptions, ErrorKind, Limits, Options, Value};

/// The limit of these evaluations: 4 MiB above a probe that reports nothing
/// allocated, so that the budget does not depend on the test process.
const LIMIT: usize = 4 << 20;

fn nothing_allocated() -> usize {
    0
}

fn engine() -> Engine {
    Engine::new(EngineOptions {
        allow_delegates: true,
        delegates: true,
        format: true,
        yaql: Options {
            limits: Limits {
                max_allocated: Some(LIMIT),
                memory_probe: Some(nothing_allocated),
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    })
}

/// `expr` fails with the memory-limit error, and soon (a few seconds in a
/// debug build: the failing step builds up to the limit first; without the
/// checks these run for hours or until memory runs out).
fn refused(expr: &str) {
    let started = Instant::now();
    let result = engine().eval_str(expr, Value::Null);
    let kind = result.as_ref().map_err(|e| e.kind);
    assert_eq!(
        kind.err(),
        Some(ErrorKind::MemoryQuota),
        "{expr}: {result:?}"
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "{expr} took {took:?}");
}

/// `expr` evaluates to a string of `len` bytes.
fn string_of(expr: &str, len: usize) {
    let v = engine().eval_str(expr, Value::Null).expect(expr);
    assert_eq!(v.as_str().map(str::len), Some(len), "{expr}");
}

/// A list holding the same list twice, 64 levels deep: 2^64 items written out.
const SHARED: &str = "range(64).aggregate([$1, $1], [])";

#[test]
fn str_of_shared_containers_stops_at_the_limit() {
    refused(&format!("str({SHARED})"));
    refused(&format!("str({SHARED}).len()"));
    refused("str(range(64).aggregate({a => $1, b => $1}, {}))");
    refused(&format!("'{{0}}'.format({SHARED})"));
    refused(&format!("'{{0!r}}'.format({SHARED})"));
    refused(&format!("[{SHARED}, 1].join(', ')"));
    refused(&format!("'abc'.replace({{x => {SHARED}}})"));
}

#[test]
fn small_values_render_as_before() {
    string_of("str([1, 'a', null, {b => true}])", 27);
    string_of("str(range(12).aggregate([$1, $1], []))", 24572);
    string_of("[1, 2, 3].join(', ')", 7);
    string_of("'{0!r}-{1}'.format('a', [1])", 8);
}

#[test]
fn format_widths_and_precisions_are_refused_before_they_are_built() {
    refused("'{0:>1000000000}'.format(1)");
    refused("'{0:^1000000000}'.format('x')");
    refused("'{0:=1000000000}'.format(-1)");
    refused("'{0:.1000000000f}'.format(1.5)");
    refused("'{0:.1000000000}'.format(1.5)");
    refused("'{0:.1000000000e}'.format(1)");
    // Many fields of one large value grow the result past the limit too.
    refused("('{0}' * 20).format('x' * 1000000)");
    string_of("'{0:>100000}'.format(1)", 100_000);
}

#[test]
fn growing_replacements_are_refused_before_they_are_built() {
    refused("range(40).aggregate($1.replace('x', 'xx'), 'x')");
    refused("range(40).aggregate($1.replace('', 'x'), 'x')");
    refused("range(40).aggregate($1.replace({x => xx}), 'x')");
    refused("('x' * 1000000).replace('x', 'yyyyyyyyyy')");
    refused("('x' * 1000000).replace('x', 'yyyyyyyyyy', 900000)");
    refused("regex('x').replace('x' * 100000, 'y' * 100)");
    refused("('x' * 100000).replace(regex('x'), 'y' * 100)");
    refused("regex('x').replaceBy('x' * 100000, 'y' * 100)");
    refused("range(40).aggregate(escapeRegex($1), '.')");
    // Replacements that shrink, or grow only a little, are not refused.
    string_of("('x' * 1000000).replace('x', 'yyyyyyyyyy', 10)", 1_000_090);
    string_of("('x' * 1000000).replace('x', '')", 0);
    string_of("regex('x').replace('x' * 100000, 'y')", 100_000);
}

#[test]
fn joins_and_concatenations_are_held_to_the_limit() {
    refused("range(20).select('x' * 1000000).join('')");
    refused("concat('x' * 5000000, 'y' * 5000000)");
    refused("('x' * 5000000) + ('y' * 5000000)");
    string_of("concat('x' * 1000000, 'y' * 1000000)", 2_000_000);
}

#[test]
fn splits_into_many_pieces_are_held_to_the_limit() {
    refused("(',' * 1000000).split(',').len()");
    refused("('x ' * 1000000).split().len()");
    refused("('x ' * 1000000).rightSplit(null, 900000).len()");
    refused("('x' * 1000000).toCharArray().len()");
    refused("regex(',').split(',' * 1000000).len()");
    let v = engine()
        .eval_str("(',' * 1000).split(',').len()", Value::Null)
        .unwrap();
    assert_eq!(v, Value::Int(1001));
}

#[test]
fn writers_outside_an_evaluation_take_their_cap() {
    let v = engine()
        .eval_str(SHARED, Value::Null)
        .expect("the shared list itself is small");
    let started = Instant::now();
    let mut out = Render::with_cap(1 << 20);
    let e = data::write_json(&v, true, &mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MemoryQuota);
    let mut left = 1 << 20;
    let e = data::to_node_capped(&v, &mut left).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MemoryQuota);
    let clipped = v.repr_clipped(100);
    assert!(
        clipped.len() <= 103 && clipped.ends_with("..."),
        "{clipped}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    let small = engine().eval_str("[1, {a => 'x'}]", Value::Null).unwrap();
    let mut out = Render::with_cap(100);
    data::write_json(&small, false, &mut out).unwrap();
    assert_eq!(out.as_str(), r#"[1,{"a":"x"}]"#);
    assert_eq!(small.repr_clipped(100), "(1, {'a': 'x'})");
}
