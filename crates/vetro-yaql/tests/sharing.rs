//! Lists and dictionaries built from one another share their buffers: a
//! loop that grows a value it also keeps (an `aggregate` accumulator, a
//! variable) does not copy it at each step, and every holder still sees
//! its own items.

use vetro_yaql::{Engine, EngineOptions, Value};

fn eval(src: &str) -> Value {
    Engine::new(EngineOptions::default())
        .eval_str(src, Value::Null)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// 100,000 appends to an accumulator that `aggregate` holds while the
/// lambda runs. Copying at each step would be 5 billion item copies (minutes
/// even in a release build); sharing takes well under a second.
#[test]
fn appending_to_a_held_list_in_a_loop_is_linear() {
    let started = std::time::Instant::now();
    let v = eval("range(100000).aggregate($1 + [$2], []).len()");
    assert_eq!(v, Value::Int(100_000));
    let took = started.elapsed();
    assert!(took.as_secs() < 20, "{took:?}");
}

#[test]
fn adding_keys_to_a_held_dict_in_a_loop_is_linear() {
    let started = std::time::Instant::now();
    let v = eval("range(50000).aggregate($1.set($2, $2 * 2), {}).len()");
    assert_eq!(v, Value::Int(50_000));
    let v = eval("range(50000).aggregate($1 + {$2 => 1}, {}).values().sum()");
    assert_eq!(v, Value::Int(50_000));
    let took = started.elapsed();
    assert!(took.as_secs() < 20, "{took:?}");
}

#[test]
fn every_holder_keeps_its_own_items() {
    // `$a` is grown twice: the second growth must not see the first's item.
    let v = eval("let(a => [1, 2]) -> [$a + [3], $a + [4], $a]");
    assert_eq!(v, eval("[[1, 2, 3], [1, 2, 4], [1, 2]]"));
    let v = eval("let(d => {a => 1}) -> [$d.set('b', 2), $d.set('c', 3), $d, $d.set('a', 9)]");
    assert_eq!(
        v,
        eval("[{a => 1, b => 2}, {a => 1, c => 3}, {a => 1}, {a => 9}]")
    );
    // Past the size where dictionaries keep a table of positions.
    let v = eval(
        "let(d => dict(range(12).select([$, $]))) -> [$d.set('x', 1).len(), $d.set('y', 2).get('x'), $d.len(), $d.get(11)]",
    );
    assert_eq!(v, eval("[13, null, 12, 11]"));
}
