//! The conformance batch protocol (`vetro run --batch`): one JSON request per
//! input line, one JSON reply per output line.

use crate::package::Package;
use crate::runtime::types::{as_object, Exc};
use crate::runtime::{ClassSource, Conformance, Rt};
use serde_json::{json, Value as Json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::rc::Rc;
use vetro_diag::SourceMap;

/// State of one batch run (one case).
#[derive(Default)]
pub struct Batch {
    source: Option<ClassSource>,
    conformance: Conformance,
    sessions: HashMap<i64, Rc<Rt>>,
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
        Exc::Native(n, _) => json!({"kind": "native", "class": n.class, "message": n.message}),
        Exc::Mpl(m) => json!({"kind": "muranopl", "class": "MuranoPlException",
                              "names": m.names, "message": m.message}),
    }
}

impl Batch {
    pub fn new() -> Batch {
        Batch::default()
    }

    fn traces(rt: &Rt) -> Json {
        let t: Vec<_> = rt.traces.borrow_mut().drain(..).collect();
        Json::Array(t.iter().map(|v| rt.encode(v)).collect())
    }

    /// Handle one request.
    pub fn handle(&mut self, req: &Json) -> Json {
        let op = req.get("op").and_then(Json::as_str).unwrap_or("");
        match op {
            "begin" => self.begin(req),
            "load" => self.load(req),
            "call" => self.call(req),
            "serialize" => match self.session(req) {
                Some(rt) => {
                    let v = rt.serialize_model();
                    success("value", v, Self::traces(&rt))
                }
                None => json!({"ok": false, "error": "unknown session"}),
            },
            "finalize" => {
                let id = req.get("session").and_then(Json::as_i64).unwrap_or(0);
                match self.sessions.remove(&id) {
                    Some(rt) => {
                        let roots: Vec<_> = rt.root.borrow().iter().cloned().collect();
                        rt.collect_garbage(&roots);
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
        let core = crate::core::core_package(&mut sources);
        let mut src = ClassSource::default();
        src.add_package(&tests);
        src.add_package(&core);
        self.source = Some(src);
        self.conformance = Conformance {
            enabled: true,
            native_classes: req
                .get("native_classes")
                .and_then(Json::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        };
        let problems: Vec<String> = tests.problems.iter().map(|d| d.message.clone()).collect();
        json!({"ok": true, "problems": problems})
    }

    fn load(&mut self, req: &Json) -> Json {
        let Some(src) = self.source.clone() else {
            return json!({"ok": false, "error": "no begin"});
        };
        let id = req.get("session").and_then(Json::as_i64).unwrap_or(0);
        let config = req.get("config").cloned().unwrap_or(json!({}));
        let rt = Rt::new(src, config, self.conformance.clone());
        self.sessions.insert(id, rt.clone());
        match rt.load_model(req.get("model").unwrap_or(&Json::Null)) {
            Ok(root) => {
                let root = root.map(|r| rt.encode(&r.value())).unwrap_or(Json::Null);
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
                match rt.store.borrow().get(id) {
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
            let _ = as_object(&recv);
            crate::core::call_external(&rt, &recv, method, args, kwargs)
        })();
        match r {
            Ok(v) => success("value", rt.encode(&v), Self::traces(&rt)),
            Err(e) => {
                json!({"ok": false, "exception": exception_json(&e, preserve), "traces": Self::traces(&rt)})
            }
        }
    }
}

/// Run the protocol over streams until the input ends.
pub fn run<R: BufRead, W: Write>(input: R, mut output: W) -> std::io::Result<()> {
    let mut batch = Batch::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Json>(&line) {
            Ok(req) => batch.handle(&req),
            Err(e) => json!({"ok": false, "error": format!("bad JSON: {e}")}),
        };
        serde_json::to_writer(&mut output, &reply)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}
