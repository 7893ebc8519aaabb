//! Python-compatible rendering and hashing of values.

use vetro_yaql::value::{float_repr, str_repr};
use vetro_yaql::{Engine, EngineOptions, Value};

#[test]
fn float_repr_matches_python() {
    for (f, want) in [
        (1.0, "1.0"),
        (0.1, "0.1"),
        (1e16, "1e+16"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (123456789012345678.0, "1.2345678901234568e+17"),
        (-2.5, "-2.5"),
        (1.0 / 3.0, "0.3333333333333333"),
        (f64::INFINITY, "inf"),
    ] {
        assert_eq!(float_repr(f), want);
    }
}

#[test]
fn str_repr_quotes_like_python() {
    assert_eq!(str_repr("abc"), "'abc'");
    assert_eq!(str_repr("it's"), "\"it's\"");
    assert_eq!(str_repr("a\nb"), "'a\\nb'");
}

#[test]
fn numbers_hash_and_compare_across_types() {
    let mut s = vetro_yaql::value::Set::new();
    s.insert(Value::Int(1));
    assert!(s.contains(&Value::Float(1.0)));
    assert!(s.contains(&Value::Bool(true)));
    let e = Engine::new(EngineOptions::default());
    let v = e
        .eval_str("str({a => [1, 2.0], b => set(1)})", Value::Null)
        .unwrap();
    assert_eq!(v, Value::from("{'a': (1, 2.0), 'b': frozenset({1})}"));
    let v = e
        .eval_str("str(datetime(2020, 1, 2, 3, 4, 5, 6))", Value::Null)
        .unwrap();
    assert_eq!(v, Value::from("2020-01-02 03:04:05.000006+00:00"));
}
