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

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use vetro_diag::SourceMap;
use vetro_yaml::{LoadOptions, Node};
use vetro_yaql::{data, Engine, EngineOptions, Value};

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let trials = match load_dir(&dir) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("corpus: {e}");
            std::process::exit(2);
        }
    };
    libtest_mimic::run(&args, trials).exit();
}

fn load_dir(dir: &Path) -> Result<Vec<Trial>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut trials = Vec::new();
    for path in files {
        trials.extend(load_file(&path)?);
    }
    Ok(trials)
}

fn load_file(path: &Path) -> Result<Vec<Trial>, String> {
    let family = path.file_stem().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut sources = SourceMap::new();
    let id = sources.add(path.display().to_string(), text);
    let docs = vetro_yaml::load_str(&sources, id, &LoadOptions::default())
        .map_err(|d| format!("{}: {}", path.display(), d[0].message))?;
    let cases = docs.first().and_then(Node::as_seq).unwrap_or(&[]);
    let mut seen = std::collections::HashSet::new();
    let mut trials = Vec::new();
    for node in cases {
        let case = Case::from_node(node).map_err(|e| format!("{}: {e}", path.display()))?;
        if !seen.insert(case.name.clone()) {
            return Err(format!("{}: duplicate case {}", path.display(), case.name));
        }
        let name = format!("{family}::{}", case.name);
        trials.push(Trial::test(name, move || case.run()));
    }
    Ok(trials)
}

enum Expect {
    /// Kept as YAML until the test runs: values are not `Send`.
    Value(Node),
    Str(String),
    Error(String),
}

struct Case {
    name: String,
    expr: String,
    data: Option<Node>,
    mode: Option<String>,
    expect: Expect,
    deviation: Option<String>,
}

impl Case {
    fn from_node(n: &Node) -> Result<Case, String> {
        let text = |k: &str| n.get(k).and_then(Node::as_str).map(str::to_string);
        let name = text("name").ok_or("a case without a name")?;
        let expr = text("expr").ok_or_else(|| format!("{name}: no expr"))?;
        let expect = if let Some(v) = n.get("value") {
            Expect::Value(v.clone())
        } else if let Some(s) = text("str") {
            Expect::Str(s)
        } else if let Some(k) = text("error") {
            Expect::Error(k)
        } else {
            return Err(format!("{name}: no value, str or error"));
        };
        Ok(Case {
            data: n.get("data").cloned(),
            mode: text("mode"),
            deviation: text("deviation"),
            name,
            expr,
            expect,
        })
    }

    fn run(self) -> Result<(), Failed> {
        let outcome = self.check();
        match (&self.deviation, outcome) {
            (None, r) => r.map_err(Failed::from),
            (Some(why), Err(got)) => {
                println!("known deviation ({}): {why}; {got}", self.name);
                Ok(())
            }
            (Some(why), Ok(())) => {
                Err(format!("marked as a deviation ({why}) but now passes: remove the mark").into())
            }
        }
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
        Some("legacy") => {
            o.legacy = true;
            o.legacy_context = true;
        }
        Some("format") => o.format = true,
        Some("no_sets") => o.no_sets = true,
        Some(m) => return Err(format!("unknown mode {m}")),
    }
    Ok(Engine::new(o))
}
