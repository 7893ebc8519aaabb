//! Work on big integers is bounded by the evaluation's limits before it
//! starts: a count beyond 64 bits is refused rather than looped over, an
//! operation whose work is too large to finish soon is refused, and the work
//! of the others counts against the operation budget at once.

use std::time::{Duration, Instant};
use vetro_yaql::{Engine, EngineOptions, ErrorKind, Limits, Options, Value};

fn engine(limits: Limits) -> Engine {
    Engine::new(EngineOptions {
        yaql: Options {
            limits,
            ..Options::default()
        },
        ..EngineOptions::default()
    })
}

/// `expr` fails with `kind` within `within` under a one-second timeout.
fn fails_fast(expr: &str, kind: ErrorKind, within: Duration) {
    let e = engine(Limits {
        timeout: Some(Duration::from_secs(1)),
        ..Limits::default()
    });
    let started = Instant::now();
    let err = e.eval_str(expr, Value::Null).unwrap_err();
    assert_eq!(err.kind, kind, "{expr}: {}", err.message);
    assert!(
        started.elapsed() < within,
        "{expr} took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_sequence_repeated_by_an_integer_beyond_64_bits_is_refused_at_once() {
    // Found by fuzzing: this ran past every limit.
    let expr = "44444444444444444444444*[1,2]*+0444444444444444444";
    fails_fast(expr, ErrorKind::Overflow, Duration::from_millis(500));
    fails_fast(
        "'ab' * 44444444444444444444444",
        ErrorKind::Overflow,
        Duration::from_millis(500),
    );
}

#[test]
fn operations_too_large_to_finish_soon_are_refused_before_they_start() {
    let huge = "let(x => pow(10, 999999)) -> ";
    for op in [
        "pow(7, $x, $x + 1)",
        "pow(7, -1, $x + 1)",
        "$x / pow(7, 500000)",
        "$x mod pow(7, 500000)",
    ] {
        fails_fast(
            &format!("{huge}{op}"),
            ErrorKind::Overflow,
            Duration::from_secs(5),
        );
    }
}

#[test]
fn the_work_of_a_big_product_counts_against_the_operation_budget() {
    let e = engine(Limits {
        max_operations: Some(10_000),
        ..Limits::default()
    });
    let expr = "let(x => pow(10, 100000)) -> $x * $x > 0";
    let err = e.eval_str(expr, Value::Null).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OperationLimit);
    // Small integers cost one operation per call, as before.
    let small = "range(100).select(pow(10, 30) * $).sum() > 0";
    assert_eq!(e.eval_str(small, Value::Null).unwrap(), Value::Bool(true));
}
