//! Planning a rule costs about its size: a rule file is untrusted input,
//! and a body of thousands of literals must not take hours before evaluation
//! (and its limits) even start.

use std::time::{Duration, Instant};
use vetro_policy::datalog::parse::parse_literal;
use vetro_policy::datalog::{Engine, ErrorClass, Limits, PolicyKind};

/// `p(x) :- n0(x), n1(x), ...` with `n` body literals and the facts
/// `n0(1)`, `n1(1)`, ... for the first `facts` of them.
fn long_rule(n: usize, facts: usize) -> String {
    let facts: String = (0..facts).map(|i| format!("n{i}(1)\n")).collect();
    let body: Vec<String> = (0..n).map(|i| format!("n{i}(x)")).collect();
    format!("{facts}p(x) :- {}\n", body.join(", "))
}

#[test]
fn a_rule_of_20000_literals_is_planned_quickly() {
    for kind in [PolicyKind::Nonrecursive, PolicyKind::Materialized] {
        let started = Instant::now();
        let mut e = Engine::new();
        e.create_policy("t", kind);
        e.insert_text("t", &long_rule(20_000, 2)).unwrap();
        let q = parse_literal("p(x)").unwrap();
        assert!(e.query("t", &q).unwrap().is_empty());
        // Planning with a greedy rescan per pick and per alternative plan
        // (cubic) took 19 s for 500 literals, so days for these; now about
        // 3 s in a debug build, and a tenth of that optimized.
        let took = started.elapsed();
        assert!(took < Duration::from_secs(60), "{kind:?}: {took:?}");
    }
}

#[test]
fn a_long_rule_that_holds_joins_without_exhausting_the_stack() {
    // The join goes one level deeper per literal, 20,000 levels here.
    for kind in [PolicyKind::Nonrecursive, PolicyKind::Materialized] {
        let mut e = Engine::new();
        e.create_policy("t", kind);
        e.insert_text("t", &long_rule(20_000, 20_000)).unwrap();
        let q = parse_literal("p(x)").unwrap();
        assert_eq!(e.query("t", &q).unwrap().len(), 1, "{kind:?}");
    }
}

#[test]
fn planning_counts_against_the_timeout() {
    let mut e = Engine::new();
    e.create_policy("t", PolicyKind::Nonrecursive);
    // No facts: evaluating the plan takes no join step at all.
    e.insert_text("t", "p(x) :- q(x), r(x)\n").unwrap();
    e.limits = Limits {
        timeout: Some(Duration::ZERO),
        ..Limits::default()
    };
    let q = parse_literal("p(x)").unwrap();
    let err = e.query("t", &q).unwrap_err();
    assert_eq!(err.class, ErrorClass::Limit);
    assert!(err.message.contains("longer than"), "{}", err.message);
}
