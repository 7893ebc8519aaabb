//! `vetro murano test PACKAGE...`: run the packages' MuranoPL test classes
//! (`io.murano.test.TestFixture` subclasses, every `test*` method, each with
//! `setUp`/`tearDown`, against the local cloud simulator (a fresh one per
//! test) or, with `--backend openstack`, a real cloud).

use crate::report::{print_diagnostics, Format};
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use vetro_deploy::Backend;
use vetro_diag::Severity;
use vetro_dsl::cloud::{CloudBackend, SimulatedCloud};
use vetro_dsl::testing::{self, TestResult};

/// `println!` that ignores a closed stdout (`vetro check --expressions | head`).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

#[derive(clap::Args)]
pub struct TestArgs {
    /// Package directories.
    #[arg(required = true)]
    packages: Vec<PathBuf>,
    #[command(flatten)]
    catalog: super::packages::CatalogArgs,
    /// Only tests whose `Class.method` contains this text.
    #[arg(long)]
    filter: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    #[command(flatten)]
    limits: super::limits::LimitArgs,
    #[command(flatten)]
    cloud: super::cloud::CloudArgs,
}

pub fn run(a: TestArgs) -> ExitCode {
    let mut lib = match a.catalog.library(&a.packages, None) {
        Ok(lib) => lib,
        Err(problems) => {
            print_diagnostics(&vetro_diag::SourceMap::new(), &problems, a.format);
            return crate::report::exit_for(&problems);
        }
    };
    lib.limits = a.limits.limits();
    let problems = lib.problems();
    // Warnings too (Murano's own core library set aside, for one).
    if !problems.is_empty() {
        print_diagnostics(&lib.sources, &problems, a.format);
    }
    if problems.iter().any(|d| d.severity == Severity::Error) {
        // 2 when a package cannot be read at all, as everywhere.
        return crate::report::exit_for(&problems);
    }
    // Text results are printed as each test ends, so a run that is killed
    // keeps what it printed.
    let text = a.format == Format::Text;
    let mut backend = match test_backends(&a.cloud) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: --backend {}: {e}", a.cloud.backend.name());
            return ExitCode::from(crate::report::USAGE);
        }
    };
    let mut results = Vec::new();
    testing::run_each_on(&lib, a.filter.as_deref(), &mut backend, |r| {
        if text {
            print_text(r);
        }
        results.push(r.clone());
    });
    let failed = results.iter().filter(|r| r.failure.is_some()).count();
    if text {
        say!("{} passed, {failed} failed", results.len() - failed);
    } else {
        let tests: Vec<_> = results.iter().map(result_json).collect();
        let out =
            serde_json::json!({"passed": results.len() - failed, "failed": failed, "tests": tests});
        say!("{out}");
    }
    if failed > 0 || results.is_empty() {
        if results.is_empty() && text {
            eprintln!("vetro murano test: no tests found (classes extending io.murano.test.TestFixture with test* methods)");
        }
        ExitCode::from(crate::report::INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

/// What gives each test its backend: a fresh simulator, or the one cloud
/// connection (one token) every test shares.
fn test_backends(
    cloud: &super::cloud::CloudArgs,
) -> Result<Box<dyn FnMut() -> Box<dyn CloudBackend>>, String> {
    match cloud.task_backend()? {
        Backend::Simulated => {
            let results = cloud.agent_results()?;
            Ok(Box::new(move || {
                let mut sim = SimulatedCloud::new();
                sim.set_agent_results(results.clone());
                Box::new(sim)
            }))
        }
        Backend::OpenStack { cloud } => {
            let shared = Rc::new(RefCell::new(cloud.connect()?));
            Ok(Box::new(move || Box::new(shared.clone())))
        }
    }
}

fn print_text(r: &TestResult) {
    match &r.failure {
        None => say!("PASS {}.{}", r.class, r.method),
        Some(f) => {
            let name = if r.method.is_empty() {
                r.class.clone()
            } else {
                format!("{}.{}", r.class, r.method)
            };
            say!(
                "FAIL {name} (in {}): {}: {}",
                f.phase,
                f.names.join(", "),
                f.message
            );
            for fr in &f.frames {
                say!(
                    "    at {}::{} ({}:{}:{}) {}",
                    fr.class,
                    fr.method,
                    fr.file,
                    fr.line,
                    fr.column,
                    fr.instruction
                );
            }
        }
    }
}

fn result_json(r: &TestResult) -> serde_json::Value {
    match &r.failure {
        None => serde_json::json!({"class": r.class, "method": r.method, "ok": true}),
        Some(f) => {
            let frames: Vec<_> = f
                .frames
                .iter()
                .map(|fr| serde_json::json!({"class": fr.class, "method": fr.method, "file": fr.file,
                                              "line": fr.line, "column": fr.column, "instruction": fr.instruction}))
                .collect();
            serde_json::json!({"class": r.class, "method": r.method, "ok": false, "phase": f.phase,
                               "names": f.names, "message": f.message, "frames": frames})
        }
    }
}
