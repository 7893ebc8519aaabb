//! Evaluating the YAQL of a UI definition, under limits.
//!
//! An [`Evaluator`] serves one operation (a form's view, a submission, the
//! object model): one YAQL engine with the dashboard's functions
//! (`generateHostname`, `repeat`, `name`, `ref`, `encryptData`), one
//! deadline, one budget of output values. A template named in an
//! expression (`$instance`) evaluates to the template itself; templates in a
//! result are expanded where they land, each time anew, as the dashboard
//! did (so `repeat($node, 3)` builds three different objects).

use crate::tpl::{Tpl, Yaql};
use indexmap::IndexMap;
use serde_json::{Map, Value as Json};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};
use vetro_diag::Span;
use vetro_yaql::value::Dict;
use vetro_yaql::{Engine, EngineOptions, Form, HostObject, Interrupt, Options, Session, Value};

/// Bounds of one operation on a UI definition.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock time for the whole operation (every expression in it).
    pub timeout: Duration,
    /// YAQL operations per expression.
    pub max_operations: u64,
    /// Values in one built object model (templates repeated included).
    pub max_values: usize,
    /// Templates expanded inside templates.
    pub max_template_depth: usize,
    /// Bytes the process may allocate during one expression, measured by
    /// this probe (the binary's counting allocator); none without a probe.
    pub memory_probe: Option<fn() -> usize>,
    pub max_allocated: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(2),
            max_operations: 1_000_000,
            max_values: 200_000,
            max_template_depth: 32,
            memory_probe: None,
            max_allocated: 256 << 20,
        }
    }
}

/// A failed evaluation: what failed, and where when known.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError {
    pub message: String,
    pub span: Option<Span>,
}

impl EvalError {
    pub fn new(message: impl Into<String>, span: Option<Span>) -> EvalError {
        EvalError {
            message: message.into(),
            span,
        }
    }
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// `$name` of a template: expanded where the value lands.
struct TemplateObj(String);
/// One item of `repeat()`: the value with `$index` set.
struct Repeated(Value, i64);
/// `ref(template, parameter, idOnly)`.
struct RefObj {
    template: String,
    parameter: String,
    id_only: Option<bool>,
}

macro_rules! host_object {
    ($t:ty, $name:expr) => {
        impl HostObject for $t {
            fn type_name(&self) -> &str {
                $name
            }
            fn as_any(&self) -> &dyn Any {
                self
            }
        }
    };
}
host_object!(TemplateObj, "template");
host_object!(Repeated, "repeated template");
host_object!(RefObj, "template reference");

/// Variables in scope while templates expand (`$index` in `repeat`).
type Vars = Vec<(String, Value)>;

/// Evaluates the expressions of one UI definition for one operation.
pub struct Evaluator<'a> {
    engine: Session,
    templates: &'a IndexMap<String, Tpl>,
    parameters: IndexMap<String, Json>,
    limits: Limits,
    deadline: Instant,
    values: Cell<usize>,
    /// `ref()` results by parameter name: the object, and whether its id was given out.
    refs: RefCell<HashMap<String, Json>>,
}

const HOSTNAME_CHARS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

fn base36(mut n: u128) -> String {
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(HOSTNAME_CHARS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `generateHostname('web-#', 2)` is `web-2`; an empty pattern gives a
/// short random name (5 random letters, the time in base 36, a counter).
pub fn generate_hostname(pattern: &str, number: i64, counter: &Cell<u32>) -> String {
    if !pattern.is_empty() {
        return pattern.replace('#', &number.to_string());
    }
    let random = uuid::Uuid::new_v4();
    let prefix: String = random.as_bytes()[..5]
        .iter()
        .map(|b| (b'a' + b % 26) as char)
        .collect();
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let mut stamp = base36(millis);
    stamp.truncate(8);
    let n = counter.get().max(1);
    counter.set((n + 1) % 1296);
    format!("{prefix}{stamp}{}", base36(u128::from(n)))
}

impl<'a> Evaluator<'a> {
    /// An evaluator for `templates`, with the `Parameters` already
    /// evaluated and the application's name (for `name()`).
    pub fn new(
        templates: &'a IndexMap<String, Tpl>,
        parameters: IndexMap<String, Json>,
        app_name: Option<String>,
        limits: &Limits,
    ) -> Evaluator<'a> {
        let deadline = Instant::now() + limits.timeout;
        let yaql = Options {
            limit_iterators: 10_000,
            memory_quota: 1_000_000,
            limits: vetro_yaql::Limits {
                timeout: Some(limits.timeout),
                max_operations: Some(limits.max_operations),
                max_allocated: limits.memory_probe.map(|_| limits.max_allocated),
                memory_probe: limits.memory_probe,
                interrupt: Some(Interrupt::new(move |_| Instant::now() < deadline)),
                ..vetro_yaql::Limits::default()
            },
            ..Options::default()
        };
        let engine = Session::new(std::sync::Arc::new(Engine::new(EngineOptions {
            legacy_context: true,
            yaql,
            ..EngineOptions::default()
        })));
        register_functions(&engine, app_name);
        Evaluator {
            engine,
            templates,
            parameters,
            limits: limits.clone(),
            deadline,
            values: Cell::new(0),
            refs: RefCell::new(HashMap::new()),
        }
    }

    fn check_time(&self, span: Option<Span>) -> Result<(), EvalError> {
        if Instant::now() >= self.deadline {
            return Err(EvalError::new(
                format!(
                    "evaluation stopped: over the time limit of {:?}",
                    self.limits.timeout
                ),
                span,
            ));
        }
        Ok(())
    }

    /// Evaluate one expression with `$` bound to `root`, the templates and
    /// parameters as variables, and `vars`.
    pub fn expr(
        &self,
        y: &Yaql,
        root: &Json,
        vars: &[(String, Value)],
    ) -> Result<Value, EvalError> {
        self.check_time(Some(y.span))?;
        let parsed = self
            .engine
            .parse(&y.text)
            .map_err(|e| EvalError::new(format!("{:?}: {e}", y.text), Some(y.span)))?;
        let ctx = self.engine.context();
        for name in self.templates.keys() {
            ctx.set(name, Value::Object(Rc::new(TemplateObj(name.clone()))));
        }
        for (name, v) in &self.parameters {
            ctx.set(name, json_to_value(v));
        }
        for (name, v) in vars {
            ctx.set(name, v.clone());
        }
        ctx.set("1", json_to_value(root));
        self.engine
            .evaluate_in(&parsed, &ctx)
            .map_err(|e| EvalError::new(format!("{:?}: {e}", y.text), Some(y.span)))
    }

    /// Evaluate an expression to plain data (templates in it expanded).
    pub fn expr_json(&self, y: &Yaql, root: &Json) -> Result<Json, EvalError> {
        let v = self.expr(y, root, &[])?;
        self.output(&v, root, &Vec::new(), 0, y.span)
    }

    /// Evaluate a tree: every expression in it, templates expanded.
    pub fn tpl(&self, t: &Tpl, root: &Json) -> Result<Json, EvalError> {
        self.tpl_in(t, root, &Vec::new(), 0)
    }

    fn count(&self, span: Span) -> Result<(), EvalError> {
        let n = self.values.get() + 1;
        self.values.set(n);
        if n > self.limits.max_values {
            return Err(EvalError::new(
                format!(
                    "the object model grows past {} values (a repeat() or template too large?)",
                    self.limits.max_values
                ),
                Some(span),
            ));
        }
        if n.is_multiple_of(1024) {
            self.check_time(Some(span))?;
        }
        Ok(())
    }

    fn tpl_in(&self, t: &Tpl, root: &Json, vars: &Vars, depth: usize) -> Result<Json, EvalError> {
        Ok(match t {
            Tpl::Expr(y) => {
                let v = self.expr(y, root, vars)?;
                return self.output(&v, root, vars, depth, y.span);
            }
            Tpl::List(items) => Json::Array(
                items
                    .iter()
                    .map(|i| self.tpl_in(i, root, vars, depth))
                    .collect::<Result<_, _>>()?,
            ),
            Tpl::Map(entries) => {
                let mut m = Map::new();
                for (k, v) in entries {
                    let key = match self.tpl_in(k, root, vars, depth)? {
                        Json::String(s) => s,
                        other => other.to_string(),
                    };
                    let value = self.tpl_in(v, root, vars, depth)?;
                    m.insert(key, value);
                }
                Json::Object(m)
            }
            constant => constant.to_json().unwrap_or(Json::Null),
        })
    }

    /// A YAQL result as plain data, expanding the templates it holds.
    fn output(
        &self,
        v: &Value,
        root: &Json,
        vars: &Vars,
        depth: usize,
        span: Span,
    ) -> Result<Json, EvalError> {
        self.count(span)?;
        Ok(match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::from(*i),
            Value::BigInt(b) => Json::String(b.to_string()),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
            Value::Str(s) => Json::String(s.to_string()),
            Value::List(items) => Json::Array(
                items
                    .iter()
                    .map(|i| self.output(i, root, vars, depth, span))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Set(items) => Json::Array(
                items
                    .iter()
                    .map(|i| self.output(i, root, vars, depth, span))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Dict(d) => {
                let mut m = Map::new();
                for (k, val) in d.iter() {
                    let key = match k {
                        Value::Str(s) => s.to_string(),
                        other => other.py_str(),
                    };
                    m.insert(key, self.output(val, root, vars, depth, span)?);
                }
                Json::Object(m)
            }
            Value::DateTime(_) | Value::TimeDelta(_) | Value::Tz(_) => Json::String(v.py_str()),
            Value::Object(o) => return self.expand(o.as_any(), root, vars, depth, span),
            other => {
                return Err(EvalError::new(
                    format!(
                        "a value of type {} cannot be part of an object model",
                        other.type_name()
                    ),
                    Some(span),
                ))
            }
        })
    }

    fn expand(
        &self,
        o: &dyn Any,
        root: &Json,
        vars: &Vars,
        depth: usize,
        span: Span,
    ) -> Result<Json, EvalError> {
        if depth >= self.limits.max_template_depth {
            return Err(EvalError::new(
                format!(
                    "templates nest deeper than {} levels (does a template include itself?)",
                    self.limits.max_template_depth
                ),
                Some(span),
            ));
        }
        if let Some(TemplateObj(name)) = o.downcast_ref::<TemplateObj>() {
            let t = self.templates.get(name).unwrap_or(&Tpl::Null);
            return self.tpl_in(t, root, vars, depth + 1);
        }
        if let Some(Repeated(item, index)) = o.downcast_ref::<Repeated>() {
            let mut inner = vars.clone();
            inner.retain(|(k, _)| k != "index");
            inner.push(("index".into(), Value::Int(*index)));
            return self.output(item, root, &inner, depth + 1, span);
        }
        if let Some(r) = o.downcast_ref::<RefObj>() {
            return self.reference(r, root, vars, depth);
        }
        Err(EvalError::new(
            "an unknown object cannot be part of an object model",
            Some(span),
        ))
    }

    /// `ref()`: the template's object the first time (with a new id), its
    /// id afterwards (or as `idOnly` says).
    fn reference(
        &self,
        r: &RefObj,
        root: &Json,
        vars: &Vars,
        depth: usize,
    ) -> Result<Json, EvalError> {
        let existing = self.refs.borrow().get(&r.parameter).cloned();
        let (object, first) = match existing {
            Some(o) => (o, false),
            None => {
                let Some(t) = self.templates.get(&r.template) else {
                    return Ok(Json::Null);
                };
                let mut o = self.tpl_in(t, root, vars, depth + 1)?;
                let Some(map) = o.as_object_mut() else {
                    return Ok(Json::Null);
                };
                let header = map.entry("?").or_insert_with(|| Json::Object(Map::new()));
                if let Some(h) = header.as_object_mut() {
                    h.insert("id".into(), Json::String(crate::model::new_object_id()));
                }
                self.refs
                    .borrow_mut()
                    .insert(r.parameter.clone(), o.clone());
                (o, true)
            }
        };
        let id_only = r.id_only.unwrap_or(!first);
        if id_only {
            Ok(object
                .get("?")
                .and_then(|h| h.get("id"))
                .cloned()
                .unwrap_or(Json::Null))
        } else {
            Ok(object)
        }
    }

    /// Evaluate a field validator: `$` is the field's value.
    pub fn truthy(&self, y: &Yaql, root: &Json) -> Result<bool, EvalError> {
        let v = self.expr(y, root, &[])?;
        Ok(truthy(&v))
    }
}

/// Python truth of a YAQL value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::List(l) => !l.is_empty(),
        Value::Dict(d) => !d.is_empty(),
        Value::Set(s) => !s.is_empty(),
        _ => true,
    }
}

/// Python truth of plain data.
pub fn truthy_json(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(o) => !o.is_empty(),
    }
}

fn register_functions(engine: &Session, app_name: Option<String>) {
    let counter = Rc::new(Cell::new(1u32));
    engine.register_fn(
        "generateHostname",
        Form::Function,
        move |pattern: Option<String>, number: i64| {
            generate_hostname(pattern.as_deref().unwrap_or(""), number, &counter)
        },
    );
    engine.register_fn("repeat", Form::Function, |template: Value, times: i64| {
        if times > 10_000 {
            return Err(vetro_yaql::Error::host(
                (),
                format!("repeat() of {times} items: at most 10000"),
            ));
        }
        let items = (0..times.max(0))
            .map(|i| Value::Object(Rc::new(Repeated(template.clone(), i + 1))))
            .collect();
        Ok(Value::list(items))
    });
    engine.register_fn("name", Form::Function, move || app_name.clone());
    let make_ref = |template: String, parameter: Option<String>, id_only: Option<bool>| {
        let parameter = parameter.unwrap_or_else(|| template.clone());
        Value::Object(Rc::new(RefObj {
            template,
            parameter,
            id_only,
        }))
    };
    engine.register_fn("ref", Form::Function, move |t: String| {
        make_ref(t, None, None)
    });
    engine.register_fn(
        "ref",
        Form::Function,
        move |t: String, p: Option<String>| make_ref(t, p, None),
    );
    engine.register_fn(
        "ref",
        Form::Function,
        move |t: String, p: Option<String>, id: Option<bool>| make_ref(t, p, id),
    );
    engine.register_fn("encryptData", Form::Function, |_data: String| {
        Err::<Value, _>(vetro_yaql::Error::host(
            (),
            "encryptData needs a key manager, and none is configured",
        ))
    });
}

/// Plain data as a YAQL value.
pub fn json_to_value(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(s) => Value::from(s.as_str()),
        Json::Array(items) => Value::list(items.iter().map(json_to_value).collect()),
        Json::Object(m) => {
            let mut d = Dict::with_capacity(m.len());
            for (k, v) in m {
                d.insert(Value::from(k.as_str()), json_to_value(v));
            }
            Value::dict(d)
        }
    }
}
