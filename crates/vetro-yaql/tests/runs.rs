//! Each evaluation keeps its own state (operation counter, limits, random
//! state) while engine-wide caches are shared by every thread.

use std::sync::Arc;
use std::time::Duration;
use vetro_yaql::{
    yaql_fn, Engine, EngineOptions, ErrorKind, Form, Limits, Options, Session, Value,
};

fn limited(limits: Limits) -> EngineOptions {
    EngineOptions {
        yaql: Options {
            limits,
            ..Options::default()
        },
        ..EngineOptions::default()
    }
}

#[test]
fn compiled_patterns_are_shared_by_threads() {
    let engine = Arc::new(Engine::new(EngineOptions::default()));
    let e = engine.clone();
    std::thread::spawn(move || {
        let v = e.eval_str("'abc'.matches('b+')", Value::Null).unwrap();
        assert_eq!(v, Value::Bool(true));
    })
    .join()
    .unwrap();
    assert_eq!(engine.regex_cache().len(), 1);
    let v = engine
        .eval_str("'xbbx'.matches('b+')", Value::Null)
        .unwrap();
    assert_eq!(v, Value::Bool(true));
    assert_eq!(engine.regex_cache().len(), 1);
}

#[test]
fn a_lazy_result_outlives_its_evaluations_deadline() {
    let mut opts = limited(Limits {
        timeout: Some(Duration::from_millis(20)),
        ..Limits::default()
    });
    opts.yaql.convert_output_data = false;
    let engine = Engine::new(opts);
    let v = engine
        .eval_str("range(2000).select($ + 1)", Value::Null)
        .unwrap();
    std::thread::sleep(Duration::from_millis(40));
    let Value::Iter(it) = &v else {
        panic!("a lazy sequence was expected")
    };
    let mut n = 0;
    while it.next().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 2000);
}

#[test]
fn a_host_draining_a_lazy_result_in_the_run_stops_at_its_limits() {
    let mut opts = limited(Limits {
        max_operations: Some(50_000),
        ..Limits::default()
    });
    opts.yaql.convert_output_data = false;
    let engine = Engine::new(opts);
    let expr = engine.parse("[1, 2].cycle().distinct()").unwrap();
    let ctx = engine.context();
    let drained = engine.evaluate_in_finishing(&expr, &ctx, |v, _| {
        let Value::Iter(it) = &v else {
            panic!("a lazy sequence was expected")
        };
        while it.next()?.is_some() {}
        Ok(())
    });
    let err = drained.err().expect("an endless result must stop");
    assert_eq!(err.kind, ErrorKind::OperationLimit);
}

#[test]
fn nested_evaluations_count_against_the_outer_budget() {
    let engine = Arc::new(Engine::new(limited(Limits {
        max_operations: Some(3_000),
        ..Limits::default()
    })));
    let session = Session::new(engine.clone());
    // A host function evaluating in the context it was called in: the
    // inner evaluation runs under the caller's run.
    let inner = engine.clone();
    session.register(yaql_fn!(Function "work", |c| (n: i64) {
        let expr = inner.parse(&format!("range({n}).len()"))?;
        inner.evaluate_in(&expr, c.ctx)
    }));
    // Each inner evaluation is within the budget, and so is the outer one
    // on its own; together they are not.
    assert_eq!(
        session.eval_str("work(1000)", Value::Null).unwrap(),
        Value::Int(1000)
    );
    let e = session
        .eval_str("range(10).select(work(1000)).toList()", Value::Null)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OperationLimit);
    // Evaluated in a context of its own, the inner evaluation is not nested.
    let detached = engine.clone();
    session.register(yaql_fn!(Function "alone", |_c| (n: i64) {
        detached.eval_str(&format!("range({n}).len()"), Value::Null)
    }));
    let v = session
        .eval_str("range(10).select(alone(1000)).toList()", Value::Null)
        .unwrap();
    assert_eq!(v, Value::list(vec![Value::Int(1000); 10]));
}

#[test]
fn a_lazy_sequence_from_an_ended_evaluation_counts_where_it_is_iterated() {
    let mut opts = limited(Limits {
        max_operations: Some(5_000),
        ..Limits::default()
    });
    opts.yaql.convert_output_data = false;
    let engine = Engine::new(opts);
    let made = engine.eval_str("range(1000000)", Value::Null).unwrap();
    let e = engine
        .evaluate(&engine.parse("$.where($ < 0).len()").unwrap(), made, &[])
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OperationLimit);
    // A sequence a host made outside any evaluation counts too.
    let mut n = 0;
    let host = Value::Iter(vetro_yaql::iter::LazyIter::detached(move || {
        n += 1;
        Ok((n <= 1_000_000).then_some(Value::Int(n)))
    }));
    let e = engine
        .evaluate(&engine.parse("$.len()").unwrap(), host, &[])
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OperationLimit);
}

#[test]
fn output_conversion_counts_a_lazy_sequence_a_host_function_returns() {
    let mut opts = EngineOptions::default();
    opts.yaql.convert_output_data = false;
    let maker = Engine::new(opts);
    let session = Session::new(Arc::new(Engine::new(limited(Limits {
        max_operations: Some(5_000),
        ..Limits::default()
    }))));
    // Made by an evaluation of its own, which has ended when it is returned.
    session.register_fn("ended", Form::Function, move || {
        maker.eval_str("range(1000000)", Value::Null).unwrap()
    });
    session.register_fn("detached", Form::Function, || {
        let mut n = 0;
        Value::Iter(vetro_yaql::iter::LazyIter::detached(move || {
            n += 1;
            Ok((n <= 1_000_000).then_some(Value::Int(n)))
        }))
    });
    // Returned as the result: converted to a list, item by item.
    for text in ["ended()", "detached()", "[1, {a => ended()}]"] {
        let e = session
            .evaluate(&session.parse(text).unwrap(), Value::Null, &[])
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::OperationLimit, "{text}");
    }
}

#[test]
fn library_functions_count_a_lazy_sequence_a_lambda_returns() {
    let session = Session::new(Arc::new(Engine::new(limited(Limits {
        max_operations: Some(5_000),
        ..Limits::default()
    }))));
    session.register_fn("endless", Form::Function, || {
        let mut n = 0;
        Value::Iter(vetro_yaql::iter::LazyIter::detached(move || {
            n += 1;
            Ok(Some(Value::Int(n)))
        }))
    });
    // The producer's children are collected before the first item is
    // given: without counting, this would run until the build cap.
    let e = session
        .evaluate(
            &session.parse("generateMany(1, endless()).first()").unwrap(),
            Value::Null,
            &[],
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OperationLimit);
}

#[test]
fn evaluations_on_many_threads_keep_their_own_budgets() {
    let engine = Arc::new(Engine::new(limited(Limits {
        max_operations: Some(5_000),
        ..Limits::default()
    })));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let e = engine.clone();
            std::thread::spawn(move || {
                for _ in 0..20 {
                    let v = e.eval_str("range(1000).where($ > 10).len()", Value::Null);
                    assert_eq!(v.unwrap(), Value::Int(989));
                }
                let e = e.eval_str("range(100000).len()", Value::Null).unwrap_err();
                assert_eq!(e.kind, ErrorKind::OperationLimit);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn a_session_with_one_run_counts_all_its_evaluations_in_it() {
    let engine = Arc::new(Engine::new(EngineOptions::default()));
    let limits = Limits {
        max_operations: Some(5_000),
        ..Limits::default()
    };
    let session = Session::with_run(engine.clone(), limits.clone());
    let expr = session.parse("range(1000).len()").unwrap();
    let mut results = Vec::new();
    for _ in 0..10 {
        results.push(session.evaluate(&expr, Value::Null, &[]));
    }
    // Each evaluation is within the budget; the session's run is not.
    assert_eq!(results[0], Ok(Value::Int(1000)));
    let e = results.pop().unwrap().unwrap_err();
    assert_eq!(e.kind, ErrorKind::OperationLimit);
    // A session with the same limits per evaluation runs them all.
    let each = Session::with_limits(engine, limits);
    for _ in 0..10 {
        assert_eq!(each.evaluate(&expr, Value::Null, &[]), Ok(Value::Int(1000)));
    }
}

#[test]
fn a_session_result_that_keeps_its_evaluation_keeps_it_apart_from_later_ones() {
    let mut opts = EngineOptions::default();
    opts.yaql.convert_output_data = false;
    let engine = Arc::new(Engine::new(opts));
    let session = Session::with_run(engine, Limits::default());
    let lazy = session
        .eval_str("range(4).select($ * 10)", Value::Null)
        .unwrap();
    // Later evaluations, of other expressions, nested or not, in between.
    for src in [
        "1 + 2",
        "[1, 2].select($ + 1)",
        "range(3).where($ > 0).len()",
    ] {
        assert!(session.eval_str(src, Value::Null).is_ok());
    }
    let Value::Iter(it) = &lazy else {
        panic!("a lazy sequence was expected")
    };
    let mut items = Vec::new();
    while let Some(v) = it.next().unwrap() {
        items.push(v);
    }
    assert_eq!(items, [0, 10, 20, 30].map(Value::Int));
    // The evaluations after it run their own compiled form.
    assert_eq!(
        session.eval_str("[3, 1, 2].orderBy($).first()", Value::Null),
        Ok(Value::Int(1))
    );
    assert_eq!(session.eval_str("2 * 3", Value::Null), Ok(Value::Int(6)));
}
