//! The MuranoPL engine protocol of the conformance corpus (`vetro run
//! --batch`): one JSON request per input line, one JSON reply per output
//! line. Requests: `begin` (load the case's class files with the core
//! library), `load` (a session with an object model), `call`, `serialize`,
//! `finalize`. Values travel in the tagged encoding (`$object`, `$dict`,
//! `$set`, `$type`).

use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::rc::Rc;
use vetro_diag::SourceMap;
use vetro_dsl::engine_fn;
use vetro_dsl::package::Package;
use vetro_dsl::runtime::limits::Limits;
use vetro_dsl::runtime::natives::{NativeCall, Natives};
use vetro_dsl::runtime::types::Exc;
use vetro_dsl::runtime::{ClassSource, Rt};
use vetro_yaql::Value;

/// State of one batch run (one case).
#[derive(Default)]
pub struct Batch {
    source: Option<ClassSource>,
    sessions: HashMap<i64, Rc<Rt>>,
    /// Limits of every session the batch starts.
    limits: Limits,
}

/// A success reply carrying `value` under `key`. Built by moving the values
/// in: `json!` would copy them through serialization.
fn success(key: &str, value: Json, traces: Json) -> Json {
    let mut reply = serde_json::Map::new();
    reply.insert("ok".into(), Json::Bool(true));
    reply.insert(key.into(), value);
    reply.insert("traces".into(), traces);
    Json::Object(reply)
}

/// The protocol form of an exception.
pub fn exception_json(e: &Exc, preserve: bool) -> Json {
    let e = if preserve { e.to_mpl() } else { e.clone() };
    match &e {
        Exc::Native(n, _) => {
            json!({"kind": "native", "class": n.class.name(), "message": n.message})
        }
        Exc::Mpl(m) => json!({"kind": "muranopl", "class": "MuranoPlException",
                              "names": m.names, "message": m.message}),
    }
}

impl Batch {
    pub fn new(limits: Limits) -> Batch {
        Batch {
            limits,
            ..Batch::default()
        }
    }

    /// The values `trace()` got since the last reply; one that cannot be
    /// written out (too deep, or past the session's limits) is its error.
    fn traces(rt: &Rt) -> Json {
        let t: Vec<_> = rt.take_traces();
        Json::Array(
            t.iter()
                .map(|v| match rt.encode(v) {
                    Ok(j) => j,
                    Err(e) => json!({"exception": exception_json(&e, false)}),
                })
                .collect(),
        )
    }

    /// Handle one request.
    pub fn handle(&mut self, req: &Json) -> Json {
        let op = req.get("op").and_then(Json::as_str).unwrap_or("");
        match op {
            "begin" => self.begin(req),
            "load" => self.load(req),
            "call" => self.call(req),
            "serialize" => match self.session(req) {
                Some(rt) => match rt.serialize_model() {
                    Ok(v) => success("value", v, Self::traces(&rt)),
                    Err(e) => json!({"ok": false, "exception": exception_json(&e, false),
                                     "traces": Self::traces(&rt)}),
                },
                None => json!({"ok": false, "error": "unknown session"}),
            },
            "finalize" => {
                let id = req.get("session").and_then(Json::as_i64).unwrap_or(0);
                match self.sessions.remove(&id) {
                    Some(rt) => {
                        rt.collect_garbage_from_root();
                        json!({"ok": true, "traces": Self::traces(&rt)})
                    }
                    None => json!({"ok": true, "traces": []}),
                }
            }
            other => json!({"ok": false, "error": format!("unknown op {other:?}")}),
        }
    }

    fn session(&self, req: &Json) -> Option<Rc<Rt>> {
        let id = req.get("session").and_then(Json::as_i64).unwrap_or(0);
        self.sessions.get(&id).cloned()
    }

    fn begin(&mut self, req: &Json) -> Json {
        let dir = req.get("classes_dir").and_then(Json::as_str).unwrap_or(".");
        let files: Option<Vec<String>> = req.get("class_files").and_then(Json::as_array).map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        });
        let mut sources = SourceMap::new();
        let tests = Package::load_test_classes(Path::new(dir), files.as_deref(), &mut sources);
        let core = vetro_dsl::core::core_package(&mut sources);
        let mut src = fixture_source();
        src.add_package(&tests);
        src.add_package(&core);
        self.source = Some(src);
        let problems: Vec<String> = tests.problems.iter().map(|d| d.message.clone()).collect();
        json!({"ok": true, "problems": problems})
    }

    fn load(&mut self, req: &Json) -> Json {
        let Some(src) = self.source.clone() else {
            return json!({"ok": false, "error": "no begin"});
        };
        let id = req.get("session").and_then(Json::as_i64).unwrap_or(0);
        let config = req.get("config").cloned().unwrap_or(json!({}));
        let rt = Rt::with_limits(src, config, self.limits.clone());
        self.sessions.insert(id, rt.clone());
        match rt.load_model(req.get("model").unwrap_or(&Json::Null)) {
            Ok(root) => {
                // An object encodes as its type and id.
                let root = match root {
                    Some(r) => rt.encode(&r.value()).unwrap_or(Json::Null),
                    None => Json::Null,
                };
                json!({"ok": true, "root": root, "traces": Self::traces(&rt)})
            }
            Err(e) => {
                json!({"ok": false, "exception": exception_json(&e, false), "traces": Self::traces(&rt)})
            }
        }
    }

    fn call(&mut self, req: &Json) -> Json {
        let Some(rt) = self.session(req) else {
            return json!({"ok": false, "error": "unknown session"});
        };
        let preserve = req
            .get("preserve_exception")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        let method = req.get("method").and_then(Json::as_str).unwrap_or("");
        let r = (|| {
            let recv = req.get("receiver").cloned().unwrap_or(Json::Null);
            let recv = if let Some(id) = recv.get("object").and_then(Json::as_str) {
                match rt.object(id) {
                    Some(o) => o.value(),
                    None => {
                        return Err(Exc::dsl(
                            "NoObjectFoundError",
                            format!("Object \"{id}\" is not found in object store"),
                        ))
                    }
                }
            } else if let Some(c) = recv.get("class").and_then(Json::as_str) {
                rt.class(c)?.type_value()
            } else {
                return Err(Exc::dsl("NoObjectFoundError", "no receiver"));
            };
            let args: Vec<_> = req
                .get("args")
                .and_then(Json::as_array)
                .map(|a| a.iter().map(|x| rt.decode(x)).collect())
                .unwrap_or_default();
            let kwargs: Vec<_> = req
                .get("kwargs")
                .and_then(Json::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), rt.decode(v))).collect())
                .unwrap_or_default();
            // The reference's test runner reused its method-name variable to
            // walk the keyword arguments: a call with keywords reached the
            // method named by the last of them (most often none, hence
            // `NoMethodFound`). The corpus records that behaviour.
            let method = kwargs
                .last()
                .map_or_else(|| method.to_string(), |(k, _)| k.clone());
            vetro_dsl::core::call_external(&rt, &recv, &method, args, kwargs)
        })();
        match r.and_then(|v| rt.encode_result(&v)) {
            Ok(v) => success("value", v, Self::traces(&rt)),
            Err(e) => {
                json!({"ok": false, "exception": exception_json(&e, preserve), "traces": Self::traces(&rt)})
            }
        }
    }
}

/// The class source of a case before its classes are added: the core
/// library's natives, plus the fixtures the corpus expects from the
/// reference's test harness (Python-implemented methods, `trace()`,
/// `yield()`, functions that raise Python exceptions).
fn fixture_source() -> ClassSource {
    let mut natives = Natives::default();
    vetro_dsl::core::register_natives(&mut natives);
    natives.register("extcls.Extender", |c| {
        let factor = match c.method {
            "pythonExtension" => None,
            "pythonExtension2" => Some(2),
            _ => return None,
        };
        Some(int_arg(c).and_then(|n| times(n, factor.unwrap_or(n))))
    });
    natives.declare_extension("extcls.Extender", "pythonExtension");
    natives.declare_extension("extcls.Extender", "pythonExtension2");
    natives.register("test.TestStatics", |c| match c.method {
        "staticPythonMethod" => {
            let factor = if c.on_class() { 7 } else { 3 };
            Some(int_arg(c).and_then(|n| times(n, factor)))
        }
        "classmethodPythonMethod" => {
            let a = c.arg(0, "arg").map(Value::py_str).unwrap_or_default();
            let prefix = if c.on_class() {
                "PythonClass"
            } else {
                "PYTHONCLASS"
            };
            Some(Ok(Value::str(&format!("{prefix}{a}"))))
        }
        _ => None,
    });
    natives.declare_method("staticPythonMethod");
    natives.declare_method("classmethodPythonMethod");
    let mut source = ClassSource::default();
    source.natives = std::sync::Arc::new(natives);
    source.session_hooks = vec![std::sync::Arc::new(|rt: &Rc<Rt>| fixture_functions(rt))];
    source
}

/// Argument `arg` as an integer (the `int()` contract the fixture methods
/// declare).
fn int_arg(c: &NativeCall<'_>) -> Result<i64, Exc> {
    match c.arg(0, "arg") {
        Some(Value::Int(n)) => Ok(*n),
        Some(Value::Str(s)) => s
            .trim()
            .parse()
            .map_err(|_| Exc::contract(format!("Value {s} violates int() contract"))),
        _ => Err(Exc::contract("Value violates int() contract")),
    }
}

fn times(a: i64, b: i64) -> Result<Value, Exc> {
    a.checked_mul(b)
        .map(Value::Int)
        .ok_or_else(|| Exc::native("", "OverflowError", "integer overflow"))
}

fn fixture_functions(rt: &Rt) {
    rt.define_function(engine_fn!(Function "trace", |rt, _c| (value: Value) {
        rt.trace(value);
        Ok(Value::Null)
    }));
    rt.define_function(engine_fn!(Function "yield", |rt, _c| () {
        rt.trace(Value::str("yield"));
        vetro_dsl::runtime::green::yield_now();
        Ok(Value::Null)
    }));
    rt.define_function(engine_fn!(Function "raisePythonException", |_rt, _c| () {
        Err::<Value, _>(Exc::native(
            "",
            "LookupError",
            "just random Python exception",
        ))
    }));
    rt.define_function(engine_fn!(Function "raiseException", |_rt, _c| () {
        Err::<Value, _>(Exc::native(
            "murano.tests.unit.dsl.test_execution",
            "CustomException",
            "",
        ))
    }));
}

/// Run the protocol over streams until the input ends. A line that is not
/// UTF-8 or not JSON gets an error reply; the next line is read as usual.
pub fn run<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    limits: Limits,
) -> std::io::Result<()> {
    let mut batch = Batch::new(limits);
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        if !crate::read_line(&mut input, &mut line)? {
            return Ok(());
        }
        number += 1;
        let reply = match std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => match serde_json::from_str::<Json>(text) {
                Ok(req) => batch.handle(&req),
                Err(e) => json!({"ok": false, "error": format!("line {number}: bad JSON: {e}")}),
            },
            Err(e) => json!({"ok": false, "error": format!("line {number} is not UTF-8: {e}")}),
        };
        serde_json::to_writer(&mut output, &reply)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class whose methods build a list nested 201 deep (twenty
    /// statements nesting ten levels each) and return or trace it.
    fn deep_class() -> String {
        let nest = "      - $l: [[[[[[[[[[$l]]]]]]]]]]\n".repeat(20);
        format!(
            "Name: Deep\nMethods:\n  nested:\n    Body:\n      - $l: [1]\n{nest}      - Return: $l\n  \
             traced:\n    Body:\n      - $l: [1]\n{nest}      - trace($l)\n      - trace(2)\n"
        )
    }

    /// A value too deep for a JSON reader is an error in the reply (a call's
    /// exception, a trace's own entry), not a reply the harness cannot read.
    #[test]
    fn values_nested_deeper_than_json_readers_go_are_errors_in_the_reply() {
        let dir = std::env::temp_dir().join(format!("vetro-dsl-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Deep.yaml"), deep_class()).unwrap();
        let mut batch = Batch::new(Limits::default());
        let begun = batch.handle(&json!({"op": "begin", "classes_dir": dir.to_str()}));
        assert_eq!(begun["problems"], json!([]), "{begun}");
        let model = json!({"?": {"id": "d1", "type": "Deep"}});
        let loaded = batch.handle(&json!({"op": "load", "session": 1, "model": model}));
        assert_eq!(loaded["ok"], json!(true), "{loaded}");
        let call = |batch: &mut Batch, method: &str| {
            batch.handle(&json!({"op": "call", "session": 1, "method": method,
                                 "receiver": {"object": "d1"}}))
        };
        let reply = call(&mut batch, "nested");
        assert_eq!(reply["ok"], json!(false), "{reply}");
        assert_eq!(
            reply["exception"]["class"],
            json!("RecursionError"),
            "{reply}"
        );
        let reply = call(&mut batch, "traced");
        assert_eq!(reply["ok"], json!(true), "{reply}");
        let traces = reply["traces"].as_array().unwrap();
        assert_eq!(traces[0]["exception"]["class"], json!("RecursionError"));
        assert_eq!(traces[1], json!(2));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// As the reference harness: a call with keyword arguments reaches the
    /// method named by the last keyword, not the one the request names.
    #[test]
    fn a_call_with_keywords_reaches_the_method_named_by_the_last_keyword() {
        let dir = std::env::temp_dir().join(format!("vetro-dsl-kw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let class = "Name: Kw\nMethods:\n  greet:\n    Arguments:\n      - who: {}\n    Body:\n      - Return: $who\n  \
                     who:\n    Arguments:\n      - who: {}\n    Body:\n      - Return: [via, $who]\n";
        std::fs::write(dir.join("Kw.yaml"), class).unwrap();
        let mut batch = Batch::new(Limits::default());
        batch.handle(&json!({"op": "begin", "classes_dir": dir.to_str()}));
        let loaded = batch.handle(
            &json!({"op": "load", "session": 1, "model": {"?": {"id": "k1", "type": "Kw"}}}),
        );
        assert_eq!(loaded["ok"], json!(true), "{loaded}");
        let call = |batch: &mut Batch, args: Json, kwargs: Json| {
            batch.handle(&json!({"op": "call", "session": 1, "method": "greet",
                                 "receiver": {"object": "k1"}, "args": args, "kwargs": kwargs}))
        };
        assert_eq!(
            call(&mut batch, json!(["x"]), json!({}))["value"],
            json!("x")
        );
        assert_eq!(
            call(&mut batch, json!([]), json!({"who": "y"}))["value"],
            json!(["via", "y"])
        );
        let reply = call(&mut batch, json!([]), json!({"nobody": "z"}));
        assert_eq!(
            reply["exception"]["class"],
            json!("NoMethodFound"),
            "{reply}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
