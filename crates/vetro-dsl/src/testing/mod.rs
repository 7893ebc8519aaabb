//! The MuranoPL test runner (`vetro murano test`): every class of the given
//! packages that extends `io.murano.test.TestFixture` is a test case; each of
//! its `test*` methods runs in a fresh session on a fresh fixture object
//! (`setUp`, the test, `tearDown`), with the simulated cloud installed.

mod mocks;

/// Register the test framework's functions (`inject()` and friends) in a session.
pub(crate) use mocks::register as register_functions;

use crate::host::Library;
use crate::runtime::types::{Exc, Frame};
use crate::syntax::MethodDef;
use std::rc::Rc;

const FIXTURE: &str = "io.murano.test.TestFixture";

/// The outcome of one test method.
#[derive(Clone, Debug)]
pub struct TestResult {
    /// The test fixture's class.
    pub class: String,
    /// The test method.
    pub method: String,
    /// `None` when the test passed.
    pub failure: Option<Failure>,
}

#[derive(Clone, Debug)]
/// Why a test failed.
pub struct Failure {
    /// Exception names (`AssertionError`, `io.murano.Exception`, ...).
    pub names: Vec<String>,
    /// The exception's message.
    pub message: String,
    /// Innermost frame first.
    pub frames: Vec<Frame>,
    /// The phase that failed: `setUp`, `test` or `tearDown`.
    pub phase: String,
}

impl Failure {
    fn new(e: &Exc, phase: &str) -> Failure {
        Failure {
            names: e.names(),
            message: e.message(),
            frames: e.frames(),
            phase: phase.to_string(),
        }
    }
}

/// Test classes of the user packages (not the core libraries), in load order,
/// with their test method names, and the classes that cannot be built (a
/// missing or cyclic parent) with the failure.
fn discover(lib: &Library) -> (Vec<(String, Vec<String>)>, Vec<TestResult>) {
    let rt = lib.session();
    let mut out = Vec::new();
    let mut broken = Vec::new();
    for pkg in &lib.packages {
        if pkg.name == "io.murano" {
            continue;
        }
        for name in pkg.classes.keys() {
            let class = match rt.class(name) {
                Ok(c) => c,
                Err(e) => {
                    broken.push(TestResult {
                        class: name.clone(),
                        method: String::new(),
                        failure: Some(Failure::new(&e, "load")),
                    });
                    continue;
                }
            };
            if class.name == FIXTURE || !class.is_a(FIXTURE) {
                continue;
            }
            let mut methods: Vec<String> = Vec::new();
            for c in class.mro() {
                for m in c.def.methods.keys() {
                    if m.starts_with("test") && !methods.contains(m) {
                        methods.push(m.clone());
                    }
                }
            }
            out.push((name.clone(), methods));
        }
    }
    (out, broken)
}

fn find_method(
    rt: &crate::runtime::Rt,
    class: &str,
    name: &str,
) -> Option<(Rc<crate::runtime::types::Class>, std::sync::Arc<MethodDef>)> {
    let c = rt.class(class).ok()?;
    c.find_methods(name).into_iter().next()
}

/// A session over the library with the test framework's functions
/// (`inject()` and friends).
fn test_session(lib: &Library) -> Rc<crate::runtime::Rt> {
    let mut source = lib.source.clone();
    source
        .session_hooks
        .push(std::sync::Arc::new(mocks::register));
    crate::runtime::Rt::with_limits(source, serde_json::json!({}), lib.limits.clone())
}

/// Run one test method in a fresh session, against `backend`.
fn run_one_on(
    lib: &Library,
    class: &str,
    method: &str,
    backend: Box<dyn crate::cloud::CloudBackend>,
) -> TestResult {
    let rt = test_session(lib);
    crate::cloud::attach(&rt, lib.host(backend, None));
    let failure = (|| {
        let c = rt.class(class).map_err(|e| Failure::new(&e, "setUp"))?;
        let obj = rt
            .new_object(&c, None, vetro_yaql::Value::Null, &Default::default())
            .map_err(|e| Failure::new(&e, "setUp"))?;
        let call = |name: &str, phase: &str| -> Result<(), Failure> {
            match find_method(&rt, class, name) {
                Some((decl, m)) => rt
                    .invoke(
                        &decl,
                        &m,
                        obj.value(),
                        Some(obj.clone()),
                        Vec::new(),
                        Vec::new(),
                    )
                    .map(|_| ())
                    .map_err(|e| Failure::new(&e, phase)),
                None => Ok(()),
            }
        };
        call("setUp", "setUp")?;
        let r = call(method, "test");
        let t = call("tearDown", "tearDown");
        r.and(t)
    })()
    .err();
    crate::cloud::detach(&rt);
    TestResult {
        class: class.to_string(),
        method: method.to_string(),
        failure,
    }
}

/// Run every test of the library; `filter` keeps tests whose `Class.method`
/// contains it. Classes that cannot be built come first, as failures.
pub fn run_all(lib: &Library, filter: Option<&str>) -> Vec<TestResult> {
    let mut out = Vec::new();
    run_each(lib, filter, |r| out.push(r.clone()));
    out
}

/// [`run_all`], handing each result over as soon as it is known (a runner
/// prints it before the next test starts).
fn run_each(lib: &Library, filter: Option<&str>, report: impl FnMut(&TestResult)) {
    let mut fresh =
        || -> Box<dyn crate::cloud::CloudBackend> { Box::new(crate::cloud::SimulatedCloud::new()) };
    run_each_on(lib, filter, &mut fresh, report)
}

/// `run_each`, each test against the backend `backend` gives.
pub fn run_each_on(
    lib: &Library,
    filter: Option<&str>,
    backend: &mut dyn FnMut() -> Box<dyn crate::cloud::CloudBackend>,
    mut report: impl FnMut(&TestResult),
) {
    let (tests, broken) = discover(lib);
    for r in &broken {
        if filter.is_none_or(|f| r.class.contains(f)) {
            report(r);
        }
    }
    for (class, methods) in tests {
        for m in methods {
            let full = format!("{class}.{m}");
            if filter.is_some_and(|f| !full.contains(f)) {
                continue;
            }
            report(&run_one_on(lib, &class, &m, backend()));
        }
    }
}
