//! Values nested far deeper than a thread's stack allows one frame per level
//! are built, compared, hashed, printed and released without a crash, and
//! written as JSON in space linear in their size.

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
