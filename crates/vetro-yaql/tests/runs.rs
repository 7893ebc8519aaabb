//! Each evaluation keeps its own state (operation counter, limits, random
//! state) while engine-wide caches are shared by every thread.

use std::sync::Arc;
use std::time::Duration;
use vetro_yaql::{Engine, EngineOptions, ErrorKind, Form, Limits, Options, Session, Value};

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
fn nested_evaluations_count_against_the_outer_budget() {
    let engine = Arc::new(Engine::new(limited(Limits {
        max_operations: Some(3_000),
        ..Limits::default()
    })));
    let session = Session::new(engine.clone());
    let inner = engine.clone();
    session.register_fn("work", Form::Function, move |n: i64| {
        inner.eval_str(&format!("range({n}).len()"), Value::Null)
    });
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
