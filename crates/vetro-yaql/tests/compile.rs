//! The compile stage: call sites resolved once against the engine's
//! library, without changing what a call means.

use std::sync::Arc;
use vetro_yaql::{Engine, EngineOptions, ErrorKind, Form, Session, Value};

#[test]
fn undefined_functions_are_reported_before_evaluation() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine.parse("len([1]) + nosuch(1) + 2.nomethod()").unwrap();
    let found: Vec<_> = e
        .undefined_functions()
        .into_iter()
        .map(|err| (err.kind, err.position))
        .collect();
    assert_eq!(
        found,
        vec![
            (ErrorKind::NoFunction, Some(11)),
            (ErrorKind::NoMethod, Some(25))
        ]
    );
    assert!(engine
        .parse("len([1, 2])")
        .unwrap()
        .undefined_functions()
        .is_empty());
    // Reached, the call fails as the report said.
    let err = engine.evaluate(&e, Value::Null, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NoFunction);
}

#[test]
fn a_session_function_shadows_a_compiled_library_call() {
    let engine = Arc::new(Engine::new(EngineOptions::default()));
    let e = engine.parse("[1, 2, 3].len() + len([1])").unwrap();
    assert_eq!(
        engine.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(4)
    );
    let session = Session::new(engine.clone());
    session.register_fn("len", Form::Both, |_: Value| 40i64);
    assert_eq!(
        session.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(80)
    );
    // Hidden names too.
    let hiding = Session::new(engine.clone());
    hiding.hide_functions(&["len"]);
    let err = hiding.evaluate(&e, Value::Null, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NoMethod);
}

#[test]
fn an_expression_compiled_by_one_engine_runs_on_another() {
    let plain = Engine::new(EngineOptions::default());
    let e = plain.parse("double(len([1, 2]))").unwrap();
    assert_eq!(e.undefined_functions().len(), 1);
    let with_double = Engine::builder(EngineOptions::default())
        .register_fn("double", Form::Function, |x: i64| x * 2)
        .build();
    assert_eq!(
        with_double.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(4)
    );
}

#[test]
fn receiver_types_still_choose_the_overload() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine.parse("$.len()").unwrap();
    for (data, n) in [(Value::str("abcd"), 4), (Value::list(vec![1.into()]), 1)] {
        assert_eq!(engine.evaluate(&e, data, &[]).unwrap(), Value::Int(n));
    }
    let err = engine.evaluate(&e, Value::Int(3), &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NoMatchingMethod);
    // The error lists every overload, as without the compile stage.
    assert!(err.message.contains("candidates"), "{}", err.message);
}

#[test]
fn a_tree_parsed_without_an_engine_is_compiled_for_one() {
    let opts = vetro_yaql::ParserOptions::default();
    let ast = vetro_yaql::parser::parse("double(3) + nosuch()", opts).unwrap();
    let tree = vetro_yaql::Expression::from_tree("double(3) + nosuch()".into(), Arc::new(ast));
    assert!(tree.undefined_functions().is_empty());
    let engine = Engine::builder(EngineOptions::default())
        .register_fn("double", Form::Function, |x: i64| x * 2)
        .build();
    assert!(!engine.compiled_for(&tree));
    let compiled = engine.compile(&tree);
    assert!(engine.compiled_for(&compiled));
    let missing: Vec<_> = compiled
        .undefined_functions()
        .into_iter()
        .map(|e| (e.kind, e.position))
        .collect();
    assert_eq!(missing, vec![(ErrorKind::NoFunction, Some(12))]);
    // Compiling again keeps the form; another engine makes its own.
    assert!(Arc::ptr_eq(
        engine.compile(&compiled).compiled.as_ref().unwrap(),
        compiled.compiled.as_ref().unwrap()
    ));
    assert!(!Engine::new(EngineOptions::default()).compiled_for(&compiled));
    let ok = engine.compile(&engine.parse("double(4) + 1").unwrap());
    assert_eq!(
        engine.evaluate(&ok, Value::Null, &[]).unwrap(),
        Value::Int(9)
    );
}

#[test]
fn sessions_over_one_engine_have_their_own_limits() {
    use vetro_yaql::Limits;
    let engine = Arc::new(Engine::new(EngineOptions::default()));
    let e = engine.parse("range(100000).where($ < 0).len()").unwrap();
    let tight = Session::with_limits(
        engine.clone(),
        Limits {
            max_operations: Some(1_000),
            ..Limits::default()
        },
    );
    let err = tight.evaluate(&e, Value::Null, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OperationLimit);
    let free = Session::new(engine.clone());
    assert_eq!(free.evaluate(&e, Value::Null, &[]).unwrap(), Value::Int(0));
}

#[test]
fn direct_calls_agree_with_resolution_and_yield_to_other_overloads() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine
        .parse("[$ * 2, $ mod 7 = 1, $ < 9, $.x, 'a' + 'b', $ = 'z', [1] + [2]]")
        .unwrap();
    let data = |v: Value| {
        let mut d = vetro_yaql::value::Dict::new();
        d.insert(Value::str("x"), v);
        d
    };
    // A dictionary has `x`; other values take the general path (`$.x` on a
    // list maps it, a string has no `*` with a number here).
    let got = engine
        .evaluate(&e, Value::dict(data(Value::Int(8))), &[])
        .unwrap_err();
    assert_eq!(got.kind, ErrorKind::NoMatchingFunction, "{}", got.message);
    let e = engine
        .parse("[$.x * 2, $.x mod 7 = 1, $.x < 9, 'a' + 'b', 9223372036854775807 + 1]")
        .unwrap();
    let got = engine
        .evaluate(&e, Value::dict(data(Value::Int(8))), &[])
        .unwrap();
    assert_eq!(
        vetro_yaql::data::to_json_string(&got, false),
        "[16,true,true,\"ab\",9223372036854775808]"
    );
    let e = engine.parse("$.x").unwrap();
    let err = engine
        .evaluate(&e, Value::dict(vetro_yaql::value::Dict::new()), &[])
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Key, "{}", err.message);
    // A library overload of the engine that is as specific as the
    // standard one is not bypassed: the call is ambiguous, as before.
    let engine = Engine::builder(EngineOptions::default())
        .register_fn("#operator_*", Form::Function, |a: i64, b: i64| a - b)
        .build();
    let e = engine.parse("3 * 2").unwrap();
    let r = engine.evaluate(&e, Value::Null, &[]);
    let plain = Engine::new(EngineOptions::default());
    let before = plain.evaluate(&plain.parse("3 * 2").unwrap(), Value::Null, &[]);
    assert_eq!(before.unwrap(), Value::Int(6));
    assert_ne!(r.ok(), Some(Value::Int(6)));
}

#[test]
fn functions_the_text_defines_are_not_undefined() {
    let engine = Engine::new(EngineOptions::default());
    let undefined = |text: &str| -> Vec<_> {
        let e = engine.parse(text).unwrap();
        e.undefined_functions()
            .into_iter()
            .map(|err| (err.kind, err.position))
            .collect()
    };
    assert!(undefined("def(twice, $ * 2) -> twice(4)").is_empty());
    assert!(undefined("def('twice', $ * 2) -> twice(4)").is_empty());
    // Defined as a function, not as a method.
    assert_eq!(
        undefined("def(twice, $ * 2) -> 4.twice() + other()"),
        vec![
            (ErrorKind::NoMethod, Some(23)),
            (ErrorKind::NoFunction, Some(33))
        ]
    );
    // A name computed when the text runs: nothing can be said.
    assert!(undefined("def(concat('f', 'g'), 1) -> fg() + nosuch()").is_empty());
    let e = engine.parse("def(twice, $ * 2) -> twice(4)").unwrap();
    assert_eq!(
        engine.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(8)
    );
}

#[test]
fn compiled_lambdas_see_their_scope_and_its_functions() {
    let engine = Engine::new(EngineOptions::default());
    let eval = |text: &str, data: Value| {
        let e = engine.parse(text).unwrap();
        let compiled = engine.evaluate(&e, data.clone(), &[]).unwrap();
        // The tree walk of the same tree gives the same answer.
        let tree = vetro_yaql::Expression::from_tree(e.source.clone(), e.ast.clone());
        assert_eq!(
            engine.evaluate(&tree, data, &[]).unwrap(),
            compiled,
            "{text}"
        );
        compiled
    };
    let list = Value::list(vec![1.into(), 2.into(), 3.into()]);
    assert_eq!(
        eval("$.select($ * 10).where($ > 10)", list.clone()),
        Value::list(vec![20.into(), 30.into()])
    );
    // Nested lambdas: the inner `$` is the inner item, `$x` the outer one.
    assert_eq!(
        eval(
            "$.select(let(x => $) -> [1, 2].select($ + $x)).len()",
            list.clone()
        ),
        Value::Int(3)
    );
    // A function defined at run time shadows the library inside a lambda.
    assert_eq!(
        eval(
            "def(len, 99) -> $.select(len($))",
            Value::list(vec![Value::str("ab")])
        ),
        Value::list(vec![99.into()])
    );
}

/// Lambdas of direct calls over `$` and number literals (kernels) give what
/// the code and the tree walk give, errors and their positions included.
#[test]
fn kernels_agree_with_the_code_and_the_tree_walk() {
    let engine = Engine::new(EngineOptions::default());
    let run = |text: &str, e: &vetro_yaql::Expression| {
        let r = engine.evaluate(e, Value::Null, &[]);
        r.map_err(|err| (err.kind, err.position, err.into_message()))
            .map(|v| vetro_yaql::data::to_json_string(&v, false))
            .unwrap_or_else(|err| format!("{err:?} ({text})"))
    };
    for text in [
        "[1, 'ab', 2.5, 9223372036854775807].select($ * 2)",
        "[{a => 1}, {a => 2.5}, {b => 1}].select($?.a + 1)",
        "[{a => 1}, [{a => 2}]].select($.a)",
        "[3, 4, 5].select(2 mod ($ - 4))",
        "[1, 'a', null].where($ = 1 or $ = null)",
        "range(10).where($ mod 3 = 0).select($ * $ > 10)",
        "[null].select($?.a)",
        "[-7, 7, 6].select([$ mod -3, $ mod 3, $ - 9223372036854775807 - 2])",
        "[1, 2, 2.5].where($ < 2 or $ >= 2.5).select([$ <= 1, $ > 1, $ != 2])",
        "[-7, 7].select($ mod -3)",
        "[-7, 7].select($ mod 3 != 2)",
        "[-7, 7].where($ - 9223372036854775807 - 2 < 0).select($ * -1 > 0)",
        "[1, 2].select(($ > 1) + 1)",
        "[1, 2, 3, 4].where($ mod 2).select(9223372036854775807 + $ * 1)",
    ] {
        let e = engine.parse(text).unwrap();
        let tree = vetro_yaql::Expression::from_tree(e.source.clone(), e.ast.clone());
        assert_eq!(run(text, &e), run(text, &tree));
    }
    let e = engine.parse("[3, 4, 5].select(2 mod ($ - 4))").unwrap();
    let err = engine.evaluate(&e, Value::Null, &[]).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ZeroDivision);
    assert_eq!(err.position, Some(19));
}

/// A function registered in a context after a lambda of that context ran
/// as a kernel shadows the library from then on.
#[test]
fn a_layer_made_later_turns_kernels_off() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine.parse("[1, 2].select($ * 2)").unwrap();
    let host = engine.context();
    let ctx = host.child();
    let doubled = Value::list(vec![2.into(), 4.into()]);
    assert_eq!(engine.evaluate_in(&e, &ctx).unwrap(), doubled);
    host.register_fn("#operator_*", Form::Function, |a: i64, b: i64| a - b);
    assert_eq!(
        engine.evaluate_in(&e, &ctx).unwrap(),
        Value::list(vec![(-1).into(), 0.into()])
    );
}

/// A layer holding only a method fallback changes no call, so compiled
/// calls stay on under it; a function registered in that same layer later
/// shadows the library from then on.
#[test]
fn a_fallback_layer_keeps_compiled_calls_until_it_names_a_function() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine.parse("[1, 2].select($ * 2)").unwrap();
    let host = engine.context();
    host.set_method_fallback(|_, _, _, _| Ok(Value::Null));
    let ctx = host.child();
    let doubled = Value::list(vec![2.into(), 4.into()]);
    assert_eq!(engine.evaluate_in(&e, &ctx).unwrap(), doubled);
    assert_eq!(engine.evaluate_in(&e, &ctx.child()).unwrap(), doubled);
    host.register_fn("#operator_*", Form::Function, |a: i64, b: i64| a - b);
    let shadowed = Value::list(vec![(-1).into(), 0.into()]);
    assert_eq!(engine.evaluate_in(&e, &ctx).unwrap(), shadowed);
    assert_eq!(engine.evaluate_in(&e, &ctx.child()).unwrap(), shadowed);
}

/// A layer naming other functions leaves compiled calls and kernels on for
/// the names it does not define; a name it gains later shadows the library
/// from then on, in contexts made before and after.
#[test]
fn a_layer_gaining_a_name_shadows_it_from_then_on() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine.parse("[1, 2].select($ * 2).sum() + 1").unwrap();
    let host = engine.context();
    host.register_fn("trace", Form::Function, |a: i64| a);
    let ctx = host.child();
    assert_eq!(engine.evaluate_in(&e, &ctx).unwrap(), Value::Int(7));
    assert_eq!(engine.evaluate_in(&e, &ctx.child()).unwrap(), Value::Int(7));
    host.register_fn("#operator_*", Form::Function, |a: i64, b: i64| a - b);
    assert_eq!(engine.evaluate_in(&e, &ctx).unwrap(), Value::Int(0));
    assert_eq!(engine.evaluate_in(&e, &ctx.child()).unwrap(), Value::Int(0));
    host.register_fn("#operator_+", Form::Function, |a: i64, b: i64| a * b);
    assert_eq!(
        engine.evaluate_in(&e, &host.child()).unwrap(),
        Value::Int(-1)
    );
}

/// `and` and `or` at compiled call sites evaluate their operands in order,
/// the right one only when the left does not decide, and give the value
/// that decides (not a boolean), as the library's functions and the tree
/// walk do; a function of the name in a layer takes over.
#[test]
fn and_or_short_circuit_at_compiled_sites() {
    let engine = Engine::new(EngineOptions::default());
    for (text, want) in [
        ("false and 1 / 0", Ok("false")),
        ("true or 1 / 0", Ok("true")),
        ("0 or 'x'", Ok("\"x\"")),
        ("null and 1", Ok("null")),
        ("2 and 3", Ok("3")),
        ("'' or 0", Ok("0")),
        ("[2, 0, 3].select($ and 10 - $)", Ok("[8,0,7]")),
        (
            "[1, 0].select($ or 1 / $)",
            Err((ErrorKind::ZeroDivision, Some(21))),
        ),
    ] {
        compiled_and_walked(&engine, text, want.map(str::to_string));
    }
    let e = engine.parse("[2, 0].select($ and 5)").unwrap();
    let ctx = engine.context().child();
    ctx.register_fn("#operator_and", Form::Function, |a: i64, b: i64| {
        a * 100 + b
    });
    ctx.set_exclusive("#operator_and");
    assert_eq!(
        engine.evaluate_in(&e, &ctx).unwrap(),
        Value::list(vec![205.into(), 5.into()])
    );
}

/// A kernel's calls count against the operation budget.
#[test]
fn kernel_calls_are_operations() {
    let limited = |max| {
        let mut opts = EngineOptions::default();
        opts.yaql.limits.max_operations = Some(max);
        Engine::new(opts)
    };
    let text = "range(2000).select($ * 2 + 1).len()";
    let engine = limited(10_000);
    assert_eq!(
        engine.eval_str(text, Value::Null).unwrap(),
        Value::Int(2000)
    );
    // Two pulls and two calls per item: 8,000 operations and more.
    let err = limited(7_000).eval_str(text, Value::Null).unwrap_err();
    assert_eq!(err.kind, ErrorKind::OperationLimit);
}

#[test]
fn a_session_function_of_another_name_leaves_compiled_calls_alone() {
    let engine = Arc::new(Engine::new(EngineOptions::default()));
    let e = engine
        .parse("range(10).where($ mod 3 = 0).select($ * 2).sum() + len([1])")
        .unwrap();
    let session = Session::new(engine.clone());
    session.register_fn("trace", Form::Function, |_: Value| 0i64);
    assert_eq!(
        session.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(37)
    );
    // A function of a library name registered later, in the same session,
    // takes effect at once.
    session.register_fn("len", Form::Both, |_: Value| 40i64);
    assert_eq!(
        session.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(76)
    );
    // And an operator of the library redefined in the session reaches the
    // lambdas' bodies too.
    session.register_fn("#operator_*", Form::Function, |a: i64, b: i64| a + b);
    assert_eq!(
        session.evaluate(&e, Value::Null, &[]).unwrap(),
        Value::Int(40 + 4 * 2 + 18)
    );
}

/// The legacy engine's `$.key` on a dictionary (a missing key is null)
/// gives the same values at a compiled site, in a kernel and in the tree
/// walk; other receivers still go to the overloads that take them.
#[test]
fn legacy_key_access_is_the_same_compiled_and_walked() {
    let engine = Engine::new(EngineOptions {
        legacy: true,
        legacy_context: true,
        ..Default::default()
    });
    for (text, want) in [
        ("[dict(a => 1), dict(b => 2)].select($.a)", Ok("[1,null]")),
        ("dict(a => dict(b => 3)).a.b", Ok("3")),
        (
            "[dict(a => 5), dict(a => 1)].where($.a > 2).select($.a * 10)",
            Ok("[50]"),
        ),
        (
            "[[dict(a => 1)], [dict(a => 2)]].select($.a)",
            Ok("[[1],[2]]"),
        ),
    ] {
        compiled_and_walked(&engine, text, want.map(|w| w.to_string()));
    }
}

/// Evaluates `text` in its compiled form and as a tree walked, both giving
/// `want` (JSON text, or the error's kind and position).
fn compiled_and_walked(
    engine: &Engine,
    text: &str,
    want: Result<String, (ErrorKind, Option<usize>)>,
) {
    let json = |r: vetro_yaql::Result<Value>| {
        r.map(|v| vetro_yaql::data::to_json_string(&v, false))
            .map_err(|e| (e.kind, e.position))
    };
    let e = engine.parse(text).unwrap();
    let tree = vetro_yaql::Expression::from_tree(e.source.clone(), e.ast.clone());
    assert_eq!(json(engine.evaluate(&e, Value::Null, &[])), want, "{text}");
    assert_eq!(
        json(engine.evaluate(&tree, Value::Null, &[])),
        want,
        "{text}"
    );
}
