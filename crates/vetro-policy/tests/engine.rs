//! Engine behaviour on small policies written for these tests.

use vetro_policy::datalog::parse::{parse, parse_literal};
use vetro_policy::datalog::{Engine, ErrorClass, PolicyKind};

fn answers(engine: &mut Engine, target: &str, query: &str) -> Vec<String> {
    let q = parse_literal(query).expect("query parses");
    let mut out: Vec<String> = engine
        .query(target, &q)
        .expect("query runs")
        .iter()
        .map(|r| engine.render(&q, r))
        .collect();
    out.sort();
    out
}

#[test]
fn canonical_text_of_statements() {
    let st =
        parse("p(x,y) :- q(x), not r(y), nova:s(id=x, 2=y)  execute[a:b(1.5, \"s\")]").unwrap();
    let text: Vec<String> = st.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        text,
        vec![
            "p(x, y) :- q(x), not r(y), nova:s(2=y, id=x)",
            "execute[a:b(1.5, \"s\")]"
        ]
    );
}

#[test]
fn syntax_errors_have_positions() {
    let e = parse("p(x) :- q(x").unwrap_err();
    assert_eq!(e.class, ErrorClass::Syntax);
    assert_eq!(e.span.map(|p| p.line), Some(1));
}

#[test]
fn error_spans_hold_the_byte_offset_line_and_column() {
    let text = "p(x) :- q(x)\nt(\"\u{e9}\", x) :- q(x), )";
    let e = parse(text).unwrap_err();
    let span = e.span.expect("a syntax error has a place");
    assert_eq!((span.line, span.col), (2, 20));
    assert_eq!(&text[span.range()], ")");
}

#[test]
fn joins_negation_and_builtins() {
    let mut e = Engine::new();
    e.create_policy("t", PolicyKind::Nonrecursive);
    e.insert_text(
        "t",
        "q(1, 2)\nq(2, 3)\nr(3)\nbad(2)\np(x, z) :- q(x, y), plus(x, y, z), not bad(x)\n",
    )
    .unwrap();
    assert_eq!(answers(&mut e, "t", "p(x, y)"), vec!["p(1, 3)"]);
}

#[test]
fn cross_policy_references() {
    let mut e = Engine::new();
    e.create_policy("a", PolicyKind::Nonrecursive);
    e.create_policy("b", PolicyKind::Nonrecursive);
    e.insert_text("b", "q(\"x\")\n").unwrap();
    e.insert_text("a", "p(v) :- b:q(v)\n").unwrap();
    assert_eq!(answers(&mut e, "a", "p(v)"), vec!["p(\"x\")"]);
}

#[test]
fn compile_errors_by_class() {
    let mut e = Engine::new();
    e.create_policy("t", PolicyKind::Nonrecursive);
    let class = |e: &mut Engine, text: &str| e.insert_text("t", text).unwrap_err().class;
    assert_eq!(class(&mut e, "p(x) :- q(y)"), ErrorClass::Unsafe);
    assert_eq!(class(&mut e, "p(x) :- not q(x)"), ErrorClass::Unsafe);
    assert_eq!(class(&mut e, "p(x) :- p(x)"), ErrorClass::Recursion);
    assert_eq!(class(&mut e, "other:p(1)"), ErrorClass::ModuleReference);
    e.insert_text("t", "s(1, 2)").unwrap();
    assert_eq!(class(&mut e, "s(1, 2, 3)"), ErrorClass::Arity);
}

#[test]
fn recursive_kind_computes_transitive_closure() {
    let mut e = Engine::new();
    e.create_policy("g", PolicyKind::Recursive);
    e.insert_text(
        "g",
        "edge(1, 2)\nedge(2, 3)\nedge(3, 1)\nreach(x, y) :- edge(x, y)\nreach(x, z) :- reach(x, y), edge(y, z)\n",
    )
    .unwrap();
    assert_eq!(
        answers(&mut e, "g", "reach(1, y)"),
        vec!["reach(1, 1)", "reach(1, 2)", "reach(1, 3)"]
    );
    let err = e
        .insert_text("g", "bad(x) :- edge(x, y), not bad(y)")
        .unwrap_err();
    assert_eq!(err.class, ErrorClass::Recursion);
}

#[test]
fn simulate_applies_action_effects_and_rolls_back() {
    let mut e = Engine::new();
    e.create_policy("s", PolicyKind::Nonrecursive);
    e.create_policy("act", PolicyKind::Action);
    e.insert_text("s", "p(1)\n").unwrap();
    e.insert_text(
        "act",
        "action(\"go\")\np+(x) :- go(x)\np-(y) :- go(x), p(y)\n",
    )
    .unwrap();
    let q = parse_literal("p(x)").unwrap();
    let seq = parse("go(2)").unwrap();
    let mut delta = e.simulate(&q, "s", &seq, "act", true).unwrap();
    delta.sort();
    assert_eq!(delta, vec!["p+(2)", "p-(1)"]);
    assert_eq!(answers(&mut e, "s", "p(x)"), vec!["p(1)"]);
}

#[test]
fn parser_never_panics_on_odd_input() {
    for text in [
        "",
        "(",
        ")",
        "p(",
        "p(1,",
        "not",
        "insert[",
        "p(\"",
        "p(0x)",
        "p :- ",
        "/*",
        "a:b:c+(1)",
        "!p(1)",
        "p(x) :- q(x) ;; r",
    ] {
        let _ = parse(text);
        let _ = parse_literal(text);
    }
}

#[test]
fn column_numbers_become_positions() {
    let mut e = Engine::new();
    e.create_policy("t", PolicyKind::Nonrecursive);
    e.insert_text(
        "t",
        "q(1, 2, 3)\nq(4, 5, 6)\np(x) :- q(x, 2=z), equal(z, 6)\n",
    )
    .unwrap();
    assert_eq!(answers(&mut e, "t", "p(x)"), vec!["p(4)"]);
    let err = e.insert_text("t", "r(x) :- q(x, id=y)").unwrap_err();
    assert_eq!(err.class, ErrorClass::ColumnReference);
}

#[test]
fn materialized_policy_follows_fact_changes() {
    use vetro_policy::datalog::value::Value;
    let mut e = Engine::new();
    e.create_policy("m", PolicyKind::Materialized);
    e.insert_text("m", "q(1)\nr(1)\nr(2)\np(x) :- r(x), not q(x)\n")
        .unwrap();
    assert_eq!(answers(&mut e, "m", "p(x)"), vec!["p(2)"]);
    e.insert_text("m", "q(2)\n").unwrap();
    assert!(answers(&mut e, "m", "p(x)").is_empty());
    let two: vetro_policy::datalog::value::Tuple = vec![Value::Int(2)].into();
    e.delete_row("m", "q", &two);
    e.insert_row("m", "r", vec![Value::Int(3)].into());
    assert_eq!(answers(&mut e, "m", "p(x)"), vec!["p(2)", "p(3)"]);
}

#[test]
fn incremental_views_agree_with_fresh_evaluation() {
    use vetro_policy::datalog::value::{Tuple, Value};
    let rules = "p(x, y) :- q(x, z), r(z, y), not s(y)\n\
                 t(x) :- p(x, y), p(y, x)\n\
                 u(x) :- q(x, x), not t(x)\n\
                 w(x) :- u(x)\nw(x) :- s(x)\n";
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut inc = Engine::new();
    inc.create_policy("m", PolicyKind::Materialized);
    inc.insert_text("m", rules).unwrap();
    let mut facts: Vec<(&str, Tuple)> = Vec::new();
    for step in 0..300 {
        let table = ["q", "r", "s"][next(3) as usize];
        let t: Tuple = if table == "s" {
            vec![Value::Int(next(4) as i64)].into()
        } else {
            vec![Value::Int(next(4) as i64), Value::Int(next(4) as i64)].into()
        };
        if let Some(i) = facts.iter().position(|(n, f)| *n == table && *f == t) {
            facts.remove(i);
            inc.delete_row("m", table, &t);
        } else {
            facts.push((table, t.clone()));
            inc.insert_row("m", table, t);
        }
        if step % 10 == 0 {
            let mut fresh = Engine::new();
            fresh.create_policy("m", PolicyKind::Nonrecursive);
            fresh.insert_text("m", rules).unwrap();
            for (n, f) in &facts {
                fresh.insert_row("m", n, f.clone());
            }
            for q in ["p(x, y)", "t(x)", "u(x)", "w(x)"] {
                assert_eq!(
                    answers(&mut inc, "m", q),
                    answers(&mut fresh, "m", q),
                    "{q} after step {step}"
                );
            }
        }
    }
}

#[test]
fn explain_gives_the_rules_and_facts() {
    use vetro_policy::datalog::explain::explain;
    let mut e = Engine::new();
    e.create_policy("t", PolicyKind::Nonrecursive);
    e.insert_text(
        "t",
        "q(1, 2)\nr(2)\nbad(3)\np(x) :- q(x, y), r(y), not bad(x)\n",
    )
    .unwrap();
    let atom = parse_literal("p(1)").unwrap();
    let proof = explain(&mut e, "t", &atom).unwrap().expect("p(1) holds");
    let mut facts: Vec<String> = proof
        .facts()
        .iter()
        .map(|(t, v)| format!("{t}{v:?}"))
        .collect();
    facts.sort();
    assert_eq!(facts, vec!["q[\"1\", \"2\"]", "r[\"2\"]"]);
    let text = proof.to_string();
    assert!(text.contains("not bad(1)"), "{text}");
    assert!(explain(&mut e, "t", &parse_literal("p(3)").unwrap())
        .unwrap()
        .is_none());
}

#[test]
fn derived_tuples_are_limited() {
    let mut engine = Engine::new();
    engine.create_policy("p", PolicyKind::Nonrecursive);
    engine.limits = vetro_policy::datalog::Limits {
        max_tuples: 1_000,
        timeout: None,
    };
    let facts: String = (0..50).map(|i| format!("a({i})\n")).collect();
    engine
        .insert_text("p", &format!("{facts}b(x, y) :- a(x), a(y)\n"))
        .unwrap();
    let q = parse_literal("b(x, y)").unwrap();
    let err = engine.query("p", &q).unwrap_err();
    assert_eq!(err.class, ErrorClass::Limit);
    engine.limits.max_tuples = 10_000;
    assert_eq!(engine.query("p", &q).unwrap().len(), 2_500);
}

/// Loading many rules with one head costs about the same per rule at any size.
#[test]
fn twenty_thousand_rules_load_in_linear_time() {
    let rules = |n: usize| -> String {
        (0..n)
            .map(|i| format!("err(x, \"r{i}\") :- p(x), q{}(x)\n", i % 97))
            .collect()
    };
    let load = |n: usize| {
        let mut engine = Engine::new();
        engine.create_policy("p", PolicyKind::Nonrecursive);
        let text = rules(n);
        let t = std::time::Instant::now();
        assert_eq!(engine.insert_text("p", &text).unwrap(), n);
        t.elapsed()
    };
    let small = load(5_000);
    let large = load(20_000);
    // Quadratic loading made this ratio 16 and more; allow noise on a busy machine.
    assert!(
        large < small * 10 + std::time::Duration::from_millis(500),
        "5k rules {small:?}, 20k rules {large:?}"
    );
}
