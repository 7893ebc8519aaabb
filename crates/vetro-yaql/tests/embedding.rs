//! The embedding API as a host (MuranoPL) uses it.

use std::any::Any;
use std::rc::Rc;
use vetro_yaql::{yaql_fn, Engine, EngineOptions, Form, FunctionDef, HostObject, Result, Value};

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
    ctx.register(yaql_fn!(Both "twice", |_c| (x: i64) { Ok(x * 2) }));
    ctx.register(
        yaql_fn!(Function "#operator_:", |_c| (ns: &str, name: &str) { Ok(format!("{ns}/{name}")) }),
    );
    ctx.register(
        yaql_fn!(Function "#unary_operator_:", |_c| (name: &str) { Ok(format!("cur/{name}")) }),
    );
    ctx.register(
        yaql_fn!(Function "#operator_is", |_c| (x: &Value, t: &str) { Ok(x.type_name() == t) }),
    );
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
fn error_in_a_long_expression_shows_a_window_of_it() {
    let engine = Engine::new(EngineOptions::default());
    let expr = format!("'{}' ]", "x".repeat(200_000));
    let e = engine.parse(&expr).unwrap_err();
    let text = e.render(&expr);
    assert!(text.len() < 1000, "{} bytes", text.len());
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines[1].trim_start();
    let caret = lines[2].len() - 3;
    assert!(shown.starts_with('…'), "{shown}");
    // The caret stands under the offending `]`.
    assert_eq!(lines[1][2..].chars().nth(caret), Some(']'), "{text}");
}

#[test]
fn restricting_visible_functions() {
    let engine = Engine::builder(EngineOptions::default())
        .allow_only(&["where", "len"])
        .build();
    let ok = engine.eval_str("[1, 2, 3].where($ > 1).len()", Value::Null);
    assert_eq!(ok.unwrap(), Value::Int(2));
    let err = engine
        .eval_str("[1, 2].select($)", Value::Null)
        .unwrap_err();
    assert_eq!(err.kind, vetro_yaql::ErrorKind::NoMethod);
    let session = vetro_yaql::Session::new(std::sync::Arc::new(engine));
    session.hide_functions(&["len"]);
    assert!(session.eval_str("len([1])", Value::Null).is_err());
}

/// An object that answers every method call itself.
struct Proxy;

impl HostObject for Proxy {
    fn type_name(&self) -> &str {
        "Proxy"
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn methods_first(&self) -> bool {
        true
    }
}

#[test]
fn methods_first_objects_bypass_registered_methods() {
    let engine = Engine::new(EngineOptions::default());
    let ctx = engine.context();
    ctx.set("proxy", Value::Object(Rc::new(Proxy)));
    ctx.set("point", Value::Object(Rc::new(Point { x: 1 })));
    ctx.set_method_fallback(|_, name, recv, args| {
        Ok(Value::from(format!(
            "{}.{}/{}",
            recv.type_name(),
            name,
            args.len()
        )))
    });
    let eval = |src: &str| engine.evaluate_in(&engine.parse(src).unwrap(), &ctx);
    // `len` is a library method, yet the proxy answers it.
    assert_eq!(eval("$proxy.len()").unwrap(), Value::from("Proxy.len/0"));
    assert_eq!(eval("$proxy?.len(1)").unwrap(), Value::from("Proxy.len/1"));
    // Other objects still go through resolution first.
    let err = eval("$point.len()").unwrap_err();
    assert_eq!(err.kind, vetro_yaql::ErrorKind::NoMatchingMethod);
}

#[test]
fn constant_parameters_take_literals_only() {
    use vetro_yaql::ErrorKind;
    let engine = Engine::new(EngineOptions::default());
    let ctx = engine.context();
    let echo = |_: &vetro_yaql::Call, a: vetro_yaql::Args| Ok(a.v(0).clone());
    ctx.register(FunctionDef::new("lit", Form::Function, "x:Const?", echo));
    ctx.register(FunctionDef::new(
        "num",
        Form::Function,
        "x:ConstNumber",
        echo,
    ));
    ctx.register(FunctionDef::new(
        "word",
        Form::Function,
        "x:ConstString",
        echo,
    ));
    ctx.register(FunctionDef::new(
        "flag",
        Form::Function,
        "x:ConstBool",
        echo,
    ));
    ctx.set("1", Value::from("computed"));
    let eval = |src: &str| engine.evaluate_in(&engine.parse(src).unwrap(), &ctx);
    assert_eq!(eval("lit(qw)").unwrap(), Value::from("qw"));
    assert_eq!(eval("lit(123)").unwrap(), Value::Int(123));
    assert_eq!(eval("lit(null)").unwrap(), Value::Null);
    assert_eq!(eval("num(1.5)").unwrap(), Value::Float(1.5));
    assert_eq!(eval("word('q w')").unwrap(), Value::from("q w"));
    assert_eq!(eval("flag(false)").unwrap(), Value::Bool(false));
    for bad in [
        "lit($)",
        "num('1')",
        "num(null)",
        "word(1)",
        "flag(1)",
        "num(1 + 1)",
    ] {
        assert_eq!(
            eval(bad).unwrap_err().kind,
            ErrorKind::NoMatchingFunction,
            "{bad}"
        );
    }
}

#[test]
fn parameter_checks_narrow_the_type() {
    use vetro_yaql::func::ParamCheck;
    let engine = Engine::new(EngineOptions::default());
    let ctx = engine.context();
    let mut def = FunctionDef::new("notBool", Form::Function, "x:any", |_, a| {
        Ok(a.v(0).clone())
    });
    def.params[0].check = Some(ParamCheck(std::sync::Arc::new(|v| {
        !matches!(v, Value::Bool(_))
    })));
    ctx.register(def);
    let eval = |src: &str| engine.evaluate_in(&engine.parse(src).unwrap(), &ctx);
    assert_eq!(eval("notBool(1)").unwrap(), Value::Int(1));
    assert_eq!(eval("notBool(1 = 1 and 2)").unwrap(), Value::Int(2));
    let err = eval("notBool(1 = 1)").unwrap_err();
    assert_eq!(err.kind, vetro_yaql::ErrorKind::NoMatchingFunction);
    let err = eval("notBool(true)").unwrap_err();
    assert_eq!(err.kind, vetro_yaql::ErrorKind::NoMatchingFunction);
}
