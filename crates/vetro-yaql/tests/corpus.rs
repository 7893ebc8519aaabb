//! The YAQL case corpus: every `tests/cases/*.yaml` file is a list of cases,
//! each run as its own named test (`<file>::<case>`).
//!
//! A case has a `name`, an `expr`, optional `data` (the value of `$`), an
//! optional `mode` and exactly one expectation:
//!
//! * `value`: the result, compared as JSON (so `1` and `1.0` differ);
//! * `str`: the result's Python `str()` (for sets, tuples, reprs);
//! * `error`: the error kind (`no_matching_method`, `key`, ...).
//!
//! `deviation: reason` marks a case where vetro is known to differ from the
//! reference semantics: the case must still fail (a fixed deviation fails the
//! run until its mark is removed) and the reason is printed.

use vetro_yaml::Node;
use vetro_yaql::{data, Engine, EngineOptions, Value};

fn main() {
    vetro_testcases::run_each(env!("CARGO_MANIFEST_DIR"), |spec| {
        let case = Case::from_spec(spec)?;
        Ok(Box::new(move || case.check()))
    })
}

enum Expect {
    /// Kept as YAML until the test runs: values are not `Send`.
    Value(Node),
    Str(String),
    Error(String),
}

struct Case {
    expr: String,
    data: Option<Node>,
    mode: Option<String>,
    expect: Expect,
}

impl Case {
    fn from_spec(n: &vetro_testcases::Case) -> Result<Case, String> {
        let text = |k: &str| n.str(k).map(str::to_string);
        let expr = text("expr").ok_or("no expr")?;
        let expect = if let Some(v) = n.get("value") {
            Expect::Value(v.clone())
        } else if let Some(s) = text("str") {
            Expect::Str(s)
        } else if let Some(k) = text("error") {
            Expect::Error(k)
        } else {
            return Err("no value, str or error".into());
        };
        Ok(Case {
            data: n.get("data").cloned(),
            mode: text("mode"),
            expr,
            expect,
        })
    }

    fn check(&self) -> Result<(), String> {
        let data = self
            .data
            .as_ref()
            .map(data::from_node)
            .unwrap_or(Value::Null);
        let got = with_engine(self.mode.as_deref(), |e| e.eval_str(&self.expr, data))?;
        match (&self.expect, got) {
            (Expect::Value(want), Ok(v)) => {
                let (want, got) = (json(&data::from_node(want)), json(&v));
                if want == got {
                    return Ok(());
                }
                Err(format!("{}: want {want}, got {got}", self.expr))
            }
            (Expect::Str(want), Ok(v)) if *want == v.to_yaql_string() => Ok(()),
            (Expect::Str(want), Ok(v)) => Err(format!(
                "{}: want str {want:?}, got {:?}",
                self.expr,
                v.to_yaql_string()
            )),
            (Expect::Error(kind), Err(e)) if e.kind.as_str() == kind => Ok(()),
            (Expect::Error(kind), Err(e)) => {
                Err(format!("{}: want {kind} error, got {e}", self.expr))
            }
            (Expect::Error(kind), Ok(v)) => Err(format!(
                "{}: want {kind} error, got {}",
                self.expr,
                json(&v)
            )),
            (_, Err(e)) => Err(format!("{}: unexpected error {e}", self.expr)),
        }
    }
}

fn json(v: &Value) -> String {
    data::to_json_string(v, false)
}

thread_local! {
    static ENGINES: std::cell::RefCell<std::collections::HashMap<String, Engine>> = Default::default();
}

/// Run `f` with this thread's engine for `mode` (built once per thread).
fn with_engine<T>(mode: Option<&str>, f: impl FnOnce(&Engine) -> T) -> Result<T, String> {
    let key = mode.unwrap_or("").to_string();
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        if !engines.contains_key(&key) {
            engines.insert(key.clone(), engine(mode)?);
        }
        Ok(f(&engines[&key]))
    })
}

/// The engine a mode names: the reference's standard context by default.
fn engine(mode: Option<&str>) -> Result<Engine, String> {
    let mut o = EngineOptions::default();
    match mode {
        None => {}
        Some("delegates") => {
            o.allow_delegates = true;
            o.delegates = true;
        }
        // The reference's legacy mode also makes dicts iterable (its keys).
        Some("legacy") => {
            o.legacy = true;
            o.legacy_context = true;
            o.yaql.iterable_dicts = true;
        }
        Some("format") => o.format = true,
        Some("no_sets") => o.no_sets = true,
        Some(m) => return Err(format!("unknown mode {m}")),
    }
    Ok(Engine::new(o))
}
