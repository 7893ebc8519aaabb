//! Values nested far deeper than a thread's stack allows one frame per level
//! are built, compared, hashed, printed and released without a crash, and
//! written as JSON in space linear in their size. Values that share their
//! containers are compared and hashed in time linear in their containers,
//! not in their paths.

use std::hash::{BuildHasher, RandomState};
use vetro_yaql::{data, Engine, EngineOptions, Value};

const DEPTH: usize = 100_000;

fn nested(engine: &Engine) -> Value {
    let text = format!("range({DEPTH}).aggregate([$1], [])");
    engine.eval_str(&text, Value::Null).unwrap()
}

#[test]
fn a_list_nested_100_000_deep_is_printed_compared_hashed_and_released() {
    let engine = Engine::new(EngineOptions::default());
    let a = nested(&engine);
    let b = nested(&engine);
    assert_eq!(a, b);
    let hasher = RandomState::new();
    assert_eq!(hasher.hash_one(&a), hasher.hash_one(&b));
    assert_eq!(a.py_str().len(), 3 * DEPTH + 2);
    let compact = data::to_json_string(&a, false);
    assert_eq!(compact.len(), 2 * DEPTH + 2);
    // Indentation stops growing (at 128 spaces), so the pretty form stays
    // linear too: two lines a level.
    let pretty = data::to_json_string(&a, true);
    assert!(pretty.len() < 2 * 140 * DEPTH, "{} bytes", pretty.len());
    drop((a, b));
}

/// A list doubled `n` times (`[$l, $l]`), with `bottom` at every leaf.
fn doubled(engine: &Engine, n: usize, bottom: i64) -> Value {
    let text = format!("range({n}).aggregate([$1, $1], {bottom})");
    engine.eval_str(&text, Value::Null).unwrap()
}

/// Time, not just stack: two lists doubled 60 times are 2^60 items each when
/// walked path by path (found probing `dict(...)` keys, which ran past
/// `--timeout`).
#[test]
fn values_sharing_their_containers_compare_and_hash_in_linear_time() {
    let engine = Engine::new(EngineOptions::default());
    let started = std::time::Instant::now();
    let (a, b, c) = (
        doubled(&engine, 60, 1),
        doubled(&engine, 60, 1),
        doubled(&engine, 60, 2),
    );
    assert_eq!(a, b);
    assert_ne!(a, c);
    let hasher = RandomState::new();
    assert_eq!(hasher.hash_one(&a), hasher.hash_one(&b));
    assert_ne!(hasher.hash_one(&a), hasher.hash_one(&c));
    let keyed = engine
        .eval_str(
            "dict(range(60).aggregate([$1, $1], 1) => k).get(range(60).aggregate([$1, $1], 1))",
            Value::Null,
        )
        .unwrap();
    assert_eq!(keyed, Value::str("k"));
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}

/// What was found equal for a shared container is remembered for that pair
/// of containers only: the same shared list against two different lists that
/// are held once.
#[test]
fn a_shared_container_equal_to_one_list_is_not_taken_as_equal_to_another() {
    let engine = Engine::new(EngineOptions::default());
    for (text, equal) in [
        ("let(s => [1, 2]) -> [$s, $s] = [[1, 2], [1, 3]]", false),
        ("let(s => [1, 2]) -> [$s, $s] = [[1, 2], [1, 2]]", true),
        (
            "let(s => {a => 1}) -> [$s, $s] = [{a => 1}, {a => 2}]",
            false,
        ),
        ("let(s => set(1)) -> [$s, $s] = [set(1), set(2)]", false),
        ("let(s => [1]) -> [[1], [2]] = [$s, $s]", false),
    ] {
        let v = engine.eval_str(text, Value::Null).unwrap();
        assert_eq!(v, Value::Bool(equal), "{text}");
    }
}

/// `flatten()` of empty lists shared 60 levels deep yields nothing for 2^60
/// steps: each step counts against the evaluation's limits (it ran past
/// `--timeout`).
#[test]
fn flattening_a_shared_value_stops_at_the_time_limit() {
    let engine = Engine::new(vetro_yaql::EngineOptions {
        yaql: vetro_yaql::Options {
            limits: vetro_yaql::Limits {
                timeout: Some(std::time::Duration::from_millis(500)),
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    });
    let started = std::time::Instant::now();
    let err = engine
        .eval_str(
            "range(60).aggregate([$1, $1], []).flatten().len()",
            Value::Null,
        )
        .unwrap_err();
    assert_eq!(err.kind, vetro_yaql::ErrorKind::Timeout, "{err:?}");
    assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
}
