//! Host errors through every evaluation path, and typed host functions.

use std::any::Any;
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::{
    yaql_fn, Context, Engine, EngineOptions, Error, ErrorKind, Form, FunctionDef, HostObject,
    Lambda, Options, Result, Session, Value,
};

/// The host's own error type, which must come back unchanged.
#[derive(Debug, PartialEq)]
struct Refused {
    code: i64,
}

/// `check(x)`: `x`, or a host error carrying `Refused { code: x }` when
/// `x` is 3 or more.
fn check(x: i64) -> Result<i64> {
    if x >= 3 {
        Err(Error::host(Refused { code: x }, format!("refused {x}")))
    } else {
        Ok(x)
    }
}

struct Gate;

impl HostObject for Gate {
    fn type_name(&self) -> &str {
        "Gate"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn get_property(&self, name: &str) -> Option<Result<Value>> {
        Some(check(name.len() as i64).map(Value::Int))
    }
}

fn host_engine(opts: EngineOptions) -> (Engine, Rc<Context>) {
    let engine = Engine::builder(opts)
        .register_fn("check", Form::Both, check)
        .build();
    let ctx = engine.context();
    ctx.set("gate", Value::Object(Rc::new(Gate)));
    ctx.set_method_fallback(|_, name, _, _| check(name.len() as i64).map(Value::Int));
    (engine, ctx)
}

fn refused_code(engine: &Engine, ctx: &Rc<Context>, src: &str) -> i64 {
    let expr = engine.parse(src).unwrap();
    let mut e = engine
        .evaluate_in(&expr, ctx)
        .expect_err(&format!("{src} should fail"));
    assert_eq!(e.kind, ErrorKind::Host, "{src}: {e}");
    assert!(e.host_payload::<String>().is_none());
    e.take_host_payload::<Refused>()
        .unwrap_or_else(|| panic!("{src}: no payload in {e:?}"))
        .code
}

#[test]
fn host_errors_come_back_from_every_evaluation_path() {
    let cases = [
        ("check(5)", 5),
        ("check(1) + check(4)", 4),
        ("[1, 2, 3].where(check($) > 0)", 3),
        ("[1, 2, 3, 4].select(check($)).toList()", 3),
        ("[[1], [2, 3]].select($.select(check($ + 1))).toList()", 3),
        // Lazy sequences: failing while iterated, inside another query, or
        // in the output conversion of an unfinished sequence.
        ("range(10).select(check($)).where($ > 100).toList()", 3),
        ("range(10).select(check($)).len()", 3),
        ("range(10).select(check($))", 3),
        ("range(10).where(check($) > 5).first()", 3),
        ("[4, 1].orderBy(check($)).toList()", 4),
        ("[1, 2, 3].groupBy($ mod 2, $, $.sum() + check(3))", 3),
        ("[1, 2].aggregate($1 + check($2 + 3), 0)", 4),
        ("let(x => check(6)) -> $x", 6),
        ("[1, 2, 5].any(check($) > 4)", 5),
        (
            "dict(a => 1, b => 7).items().select(check($[1])).toList()",
            7,
        ),
        // Nested host calls and method forms.
        ("check(check(2) + check(2))", 4),
        ("3.check()", 3),
        // Host objects: a property and the method fallback.
        ("$gate.abcd", 4),
        ("$gate.doIt(1)", 4),
        ("[1, 2].select($gate.abcde).toList()", 5),
    ];
    let (engine, ctx) = host_engine(EngineOptions::default());
    for (src, code) in cases {
        assert_eq!(refused_code(&engine, &ctx, src), code, "{src}");
    }
    // The legacy library layer and its functions.
    let (engine, ctx) = host_engine(EngineOptions {
        legacy: true,
        legacy_context: true,
        ..EngineOptions::default()
    });
    for (src, code) in [
        ("[1, 2, 3].where(check($) > 0)", 3),
        ("[1, 2, 3, 4].select(check($))", 3),
        ("dict(a => 4).get(a).check()", 4),
    ] {
        assert_eq!(refused_code(&engine, &ctx, src), code, "legacy {src}");
    }
    // Without output conversion and with iterable dictionaries.
    let (engine, ctx) = host_engine(EngineOptions {
        yaql: Options {
            convert_output_data: false,
            iterable_dicts: true,
            ..Options::default()
        },
        ..EngineOptions::default()
    });
    assert_eq!(
        refused_code(
            &engine,
            &ctx,
            "dict(a => 5).select(check($.len() + 4)).toList()"
        ),
        5
    );
}

#[test]
fn a_host_error_can_act_as_a_library_kind() {
    let engine = Engine::builder(EngineOptions::default())
        .register_fn("lookup", Form::Function, |k: String| -> Result<Value> {
            Err(Error::new(ErrorKind::Key, k.clone()).with_host_payload(Refused { code: 1 }))
        })
        .build();
    let e = engine.eval_str("lookup(a)", Value::Null).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Key);
    assert_eq!(e.host_payload::<Refused>(), Some(&Refused { code: 1 }));
}

#[test]
fn host_error_equality_and_taking_the_payload() {
    let a = Error::host(Refused { code: 1 }, "no");
    let b = Error::host(Refused { code: 1 }, "no");
    // Payloads compare by pointer: clones are equal, separate errors not.
    assert_eq!(a, a.clone());
    assert_ne!(a, b);
    assert_ne!(a, Error::new(ErrorKind::Host, "no"));
    assert_eq!(Error::type_err("x"), Error::type_err("x"));
    assert_eq!(a.to_string(), "host: no");

    // A clone shares the payload: it can be borrowed, not moved out.
    let mut shared = a.clone();
    assert!(shared.take_host_payload::<Refused>().is_none());
    assert_eq!(shared.host_payload::<Refused>(), Some(&Refused { code: 1 }));
    drop(a);
    assert_eq!(
        shared.take_host_payload::<Refused>(),
        Some(Refused { code: 1 })
    );
    assert!(!shared.has_host_payload());
    // The wrong type leaves the payload in place.
    let mut b = b;
    assert!(b.take_host_payload::<String>().is_none());
    assert!(b.has_host_payload());
}

#[test]
fn typed_functions_of_each_arity_and_parameter_type() {
    // A session's functions may hold single-threaded state (`note` below).
    let engine = Session::new(Arc::new(Engine::new(EngineOptions::default())));
    engine.register_fn("answer", Form::Function, || 42);
    engine.register_fn("double", Form::Both, |x: i64| x * 2);
    engine.register_fn("half", Form::Both, |x: f64| x / 2.0);
    engine.register_fn("neg", Form::Function, |b: bool| !b);
    engine.register_fn("rep", Form::Function, |s: String, n: i64| {
        s.repeat(n as usize)
    });
    engine.register_fn("orDefault", Form::Function, |x: Option<i64>| {
        x.unwrap_or(-1)
    });
    engine.register_fn("total", Form::Method, |xs: Vec<i64>| xs.iter().sum::<i64>());
    engine.register_fn("count", Form::Function, |xs: Vec<Value>| xs.len() as i64);
    engine.register_fn("same", Form::Function, |v: Value| v);
    engine.register_fn("clamp", Form::Function, |x: f64, lo: f64, hi: f64| {
        x.max(lo).min(hi)
    });
    engine.register_fn(
        "join4",
        Form::Function,
        |a: String, b: Rc<str>, c: i64, d: Option<bool>| format!("{a}{b}{c}{d:?}"),
    );
    engine.register_fn("firstOver", Form::Method, |xs: Vec<Value>, pred: Lambda| {
        for x in xs {
            if pred.call1(x.clone())?.truthy() {
                return Ok(x);
            }
        }
        Ok(Value::Null)
    });
    let seen = Rc::new(std::cell::Cell::new(0));
    let log = seen.clone();
    engine.register_fn("note", Form::Function, move |x: i64| log.set(x));
    engine.register_fn("find", Form::Function, |x: i64| (x > 0).then_some(x));
    engine.register_fn(
        "parse",
        Form::Function,
        |s: String| -> Result<Option<f64>> {
            s.parse::<f64>()
                .map(Some)
                .map_err(|e| Error::value_err(e.to_string()))
        },
    );
    let ok = |src: &str| engine.eval_str(src, Value::Null).unwrap();
    let kind = |src: &str| engine.eval_str(src, Value::Null).unwrap_err().kind;
    assert_eq!(ok("note(7)"), Value::Null);
    assert_eq!(seen.get(), 7);
    assert_eq!(ok("find(-1)"), Value::Null);
    assert_eq!(ok("find(2)"), Value::Int(2));
    assert_eq!(ok("parse('2.5')"), Value::Float(2.5));
    assert_eq!(kind("parse(x)"), ErrorKind::Value);
    assert_eq!(ok("answer()"), Value::Int(42));
    assert_eq!(ok("double(21) + 4.double()"), Value::Int(50));
    assert_eq!(ok("half(3)"), Value::Float(1.5));
    assert_eq!(ok("neg(false)"), Value::Bool(true));
    assert_eq!(ok("rep(ab, 3)"), Value::from("ababab"));
    assert_eq!(ok("orDefault(null)"), Value::Int(-1));
    assert_eq!(ok("orDefault(5)"), Value::Int(5));
    assert_eq!(ok("[1, 2, 3].total()"), Value::Int(6));
    assert_eq!(ok("range(4).total()"), Value::Int(6));
    assert_eq!(ok("count(set(1, 2))"), Value::Int(2));
    assert_eq!(ok("same(null)"), Value::Null);
    assert_eq!(ok("clamp(7, 0, 5)"), Value::Float(5.0));
    assert_eq!(ok("join4(a, b, 1, null)"), Value::from("ab1None"));
    assert_eq!(ok("join4(a, b, 1, true)"), Value::from("ab1Some(true)"));
    assert_eq!(ok("[1, 5, 9].firstOver($ > 3)"), Value::Int(5));

    // The Rust types decide which arguments fit.
    assert_eq!(kind("double(true)"), ErrorKind::NoMatchingFunction);
    assert_eq!(kind("double(1.5)"), ErrorKind::NoMatchingFunction);
    assert_eq!(kind("double(null)"), ErrorKind::NoMatchingFunction);
    assert_eq!(kind("neg(1)"), ErrorKind::NoMatchingFunction);
    assert_eq!(kind("rep(1, 2)"), ErrorKind::NoMatchingFunction);
    assert_eq!(kind("half('x')"), ErrorKind::NoMatchingFunction);
    assert_eq!(kind("total(5)"), ErrorKind::NoFunction);
    assert_eq!(kind("5.total()"), ErrorKind::NoMatchingMethod);
    assert_eq!(kind("double(1, 2)"), ErrorKind::NoMatchingFunction);
    // Items of a sequence are checked when it is converted.
    assert_eq!(kind("[1, a].total()"), ErrorKind::Type);
    assert_eq!(kind("double(100000000000000000000)"), ErrorKind::Overflow);
}

#[test]
fn typed_overloads_named_parameters_and_contexts() {
    let engine = Session::new(Arc::new(Engine::new(EngineOptions::default())));
    engine.register_fn("kind", Form::Function, |_: i64| "int");
    engine.register_fn("kind", Form::Function, |_: String| "string");
    engine.register(
        yaql_fn!(Function "sub", |_c| (minuend: i64, subtrahend: i64) {
            Ok(minuend - subtrahend)
        }),
    );
    let ok = |src: &str| engine.eval_str(src, Value::Null).unwrap();
    assert_eq!(ok("kind(1)"), Value::from("int"));
    assert_eq!(ok("kind(a)"), Value::from("string"));
    assert_eq!(ok("sub(subtrahend => 1, minuend => 10)"), Value::Int(9));

    // A child context's function is visible in its evaluations only.
    let ctx = engine.context();
    ctx.register_fn("scoped", Form::Function, |x: i64| x + 1);
    let e = engine.parse("scoped(1)").unwrap();
    assert_eq!(engine.evaluate_in(&e, &ctx).unwrap(), Value::Int(2));
    assert_eq!(
        engine.evaluate(&e, Value::Null, &[]).unwrap_err().kind,
        ErrorKind::NoFunction
    );
}

#[test]
fn string_signatures_with_unknown_types_are_refused() {
    let body = |_: &vetro_yaql::Call, _: vetro_yaql::Args| Ok(Value::Null);
    let e = FunctionDef::try_new("f", Form::Function, "x:Strin", body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Argument);
    assert!(
        e.message.contains("unknown parameter type \"Strin\""),
        "{e}"
    );
    let e = FunctionDef::try_new("f", Form::Function, "x:int=abc", body).unwrap_err();
    assert!(e.message.contains("unreadable default"), "{e}");
    let f =
        FunctionDef::try_new("f", Form::Both, "x:String?, n:int=-2, s:String='a b'", body).unwrap();
    assert_eq!(f.params.len(), 3);
    assert!(f.params[0].nullable);
}

#[test]
#[should_panic(expected = "unknown parameter type \"Mapping?x\"")]
fn a_string_signature_with_an_unknown_type_panics_at_registration() {
    FunctionDef::new("f", Form::Function, "m:Mapping?x", |_, _| Ok(Value::Null));
}

/// Sessions share one engine; what one session registers or hides changes
/// neither the engine nor the other sessions.
#[test]
fn a_sessions_functions_leave_the_engine_and_other_sessions_alone() {
    let engine = Arc::new(Engine::new(EngineOptions::default()));
    let first = Session::new(engine.clone());
    let second = Session::new(engine.clone());
    first.hide_functions(&["len"]);
    first.register_fn("twice", Form::Function, |x: i64| x * 2);
    assert_eq!(
        first.eval_str("twice(21)", Value::Null).unwrap(),
        Value::Int(42)
    );
    assert!(first.eval_str("len([1, 2])", Value::Null).is_err());
    assert!(second.eval_str("twice(21)", Value::Null).is_err());
    assert_eq!(
        second.eval_str("len([1, 2])", Value::Null).unwrap(),
        Value::Int(2)
    );
    assert!(engine.eval_str("twice(21)", Value::Null).is_err());
    assert_eq!(
        engine.eval_str("len([1, 2])", Value::Null).unwrap(),
        Value::Int(2)
    );
}

/// One engine, its host functions included, serves several threads at once.
#[test]
fn one_engine_evaluates_on_many_threads() {
    let engine = Arc::new(
        Engine::builder(EngineOptions::default())
            .register_fn("triple", Form::Both, |x: i64| x * 3)
            .build(),
    );
    let expr = engine
        .parse("range($).where($ mod 3 = 0).select($.triple()).sum()")
        .unwrap();
    let handles: Vec<_> = (0..4i64)
        .map(|t| {
            let (engine, expr) = (engine.clone(), expr.clone());
            std::thread::spawn(move || {
                let n = 1000 + t;
                let got = engine.evaluate(&expr, Value::Int(n), &[]).unwrap();
                let want: i64 = (0..n).filter(|i| i % 3 == 0).map(|i| i * 3).sum();
                assert_eq!(got, Value::Int(want));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
