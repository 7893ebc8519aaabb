//! The embedding API as a host (MuranoPL) uses it.

use std::any::Any;
use std::rc::Rc;
use vetro_yaql::{Engine, EngineOptions, Form, FunctionDef, HostObject, Result, Value};

struct Point {
    x: i64,
}

impl HostObject for Point {
    fn type_name(&self) -> &str {
        "Point"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn get_property(&self, name: &str) -> Option<Result<Value>> {
        (name == "x").then(|| Ok(Value::Int(self.x)))
    }
}

#[test]
fn host_functions_variables_and_objects() {
    let engine = Engine::new(EngineOptions {
        colon: true,
        is_operator: true,
        ..Default::default()
    });
    let ctx = engine.context();
    ctx.set("limit", Value::Int(2));
    ctx.set("p", Value::Object(Rc::new(Point { x: 7 })));
    ctx.register(FunctionDef::new("twice", Form::Both, "x:Number", |_, a| {
        vetro_yaql::stdlib::math::mul(a.v(0), &Value::Int(2))
    }));
    ctx.register(FunctionDef::new(
        "#operator_:",
        Form::Function,
        "ns:any, name:any",
        |_, a| Ok(Value::from(format!("{}/{}", a.str(0), a.str(1)))),
    ));
    ctx.register(FunctionDef::new(
        "#unary_operator_:",
        Form::Function,
        "name:any",
        |_, a| Ok(Value::from(format!("cur/{}", a.str(0)))),
    ));
    ctx.register(FunctionDef::new(
        "#operator_is",
        Form::Function,
        "x:any, t:any",
        |_, a| Ok(Value::Bool(a.v(0).type_name() == a.str(1))),
    ));
    ctx.set_method_fallback(|_, name, recv, args| {
        Ok(Value::from(format!(
            "{}.{}/{}",
            recv.type_name(),
            name,
            args.len()
        )))
    });
    ctx.set("1", Value::list(vec![1.into(), 2.into(), 3.into()]));
    let eval = |src: &str| {
        engine
            .evaluate_in(&engine.parse(src).unwrap(), &ctx)
            .unwrap()
    };
    assert_eq!(
        eval("$.take($limit).select(twice($))"),
        Value::list(vec![2.into(), 4.into()])
    );
    assert_eq!(eval("3.twice()"), Value::Int(6));
    assert_eq!(eval("$p.x"), Value::Int(7));
    assert_eq!(eval("sys:Logger"), Value::from("sys/Logger"));
    assert_eq!(eval(":Foo"), Value::from("cur/Foo"));
    assert_eq!(eval("1 is int"), Value::Bool(true));
    assert_eq!(eval("$p.anything(1, 2)"), Value::from("Point.anything/2"));
}

#[test]
fn parse_once_evaluate_many() {
    let engine = Engine::new(EngineOptions::default());
    let expr = engine.parse("$ * 2").unwrap();
    for i in 0..10 {
        assert_eq!(
            engine.evaluate(&expr, Value::Int(i), &[]).unwrap(),
            Value::Int(i * 2)
        );
    }
}

#[test]
fn parse_error_has_position_and_caret() {
    let engine = Engine::new(EngineOptions::default());
    let e = engine.parse("1 + + ]").unwrap_err();
    assert_eq!(e.position, Some(6));
    assert!(e.render("1 + + ]").ends_with("      ^"));
}

#[test]
fn restricting_visible_functions() {
    let engine = Engine::new(EngineOptions::default());
    engine.allow_only(&["where", "len"]);
    let ok = engine.eval_str("[1, 2, 3].where($ > 1).len()", Value::Null);
    assert_eq!(ok.unwrap(), Value::Int(2));
    let err = engine
        .eval_str("[1, 2].select($)", Value::Null)
        .unwrap_err();
    assert_eq!(err.kind, vetro_yaql::ErrorKind::NoMethod);
    engine.hide_functions(&["len"]);
    assert!(engine.eval_str("len([1])", Value::Null).is_err());
}
