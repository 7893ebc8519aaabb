//! `vetro run`: deploy an object model (run a method on its root, or an action
//! on one of its objects) against a cloud backend; `--batch` speaks the engine
//! protocol the conformance harness drives (one JSON request per line on stdin).

use crate::report::{print_diagnostics, Format};
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use vetro_diag::Severity;
use vetro_dsl::cloud::{Event, SimulatedCloud};
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::runtime::types::Exc;

/// `println!` through the shared stdout writer (a closed pipe ends the run quietly).
macro_rules! say {
    ($($t:tt)*) => {
        crate::outln!($($t)*)
    };
}

#[derive(clap::Args)]
pub struct Args {
    /// Speak the JSON-lines engine protocol on stdin/stdout.
    #[arg(long)]
    batch: bool,
    /// Package directories (each with manifest.yaml and Classes/).
    packages: Vec<PathBuf>,
    #[command(flatten)]
    catalog: super::packages::CatalogArgs,
    /// Object model (JSON or YAML): `{"Objects": ...}` or a bare root object.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Method to run on the model's root object.
    #[arg(long, default_value = "deploy")]
    method: String,
    /// Run an action instead: OBJECT_ID/METHOD (a `Usage: Action` method).
    #[arg(long, conflicts_with = "method")]
    action: Option<String>,
    #[command(flatten)]
    cloud: super::cloud::CloudArgs,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the final Heat template (HOT, JSON) of the deployment's stack here.
    #[arg(long)]
    heat_template: Option<PathBuf>,
    /// Keep the simulated cloud between runs in this JSON file: read before the
    /// run (when it exists), written after it. Without it every run starts
    /// from an empty simulator.
    #[arg(long)]
    cloud_state: Option<PathBuf>,
    #[command(flatten)]
    limits: super::limits::LimitArgs,
}

pub fn run(args: Args) -> ExitCode {
    if args.batch {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        let out = std::io::BufWriter::new(stdout.lock());
        return match vetro_conformance::dsl::run(stdin.lock(), out, args.limits.limits()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if crate::report::is_closed_pipe(&e) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vetro run: {e}");
                ExitCode::from(2)
            }
        };
    }
    deploy(args)
}

fn usage(msg: &str, format: Format) -> ExitCode {
    fail(crate::report::USAGE, "usage", msg, format)
}

/// A problem that ends the run before it has a result: a line on stderr, or
/// with `--format json` the object `{"ok": false, "error": {"kind", "message"}}`
/// on stdout, where the result would have been.
fn fail(code: u8, kind: &str, msg: &str, format: Format) -> ExitCode {
    let msg = vetro_diag::clip(msg);
    match format {
        Format::Text => eprintln!("vetro run: {msg}"),
        Format::Json => {
            let out = serde_json::json!({"ok": false, "error": {"kind": kind, "message": msg}});
            say!("{out}");
        }
    }
    ExitCode::from(code)
}

/// The packages named, with their dependencies from `--packages`; problems
/// are printed and end the run.
fn load_library(args: &Args, model: &serde_json::Value) -> Result<Library, ExitCode> {
    let mut lib = args
        .catalog
        .library(&args.packages, Some(model))
        .map_err(|problems| {
            print_diagnostics(&vetro_diag::SourceMap::new(), &problems, args.format);
            crate::report::exit_for(&problems)
        })?;
    lib.limits = args.limits.limits();
    let problems = lib.problems();
    // Warnings too (Murano's own core library set aside, for one).
    if !problems.is_empty() {
        print_diagnostics(&lib.sources, &problems, args.format);
    }
    if problems.iter().any(|d| d.severity == Severity::Error) {
        return Err(crate::report::exit_for(&problems));
    }
    if args.format == Format::Text {
        for p in args.catalog.taken(&lib, &args.packages) {
            say!(
                "vetro run: from the catalog: {} {} ({})",
                p.name,
                p.version,
                p.root.display()
            );
        }
    }
    Ok(lib)
}

fn deploy(args: Args) -> ExitCode {
    let Some(model_path) = &args.model else {
        return usage("--model MODEL is required (or --batch)", args.format);
    };
    if args.packages.is_empty() {
        return usage("give at least one package directory", args.format);
    }
    let (target, method) = match &args.action {
        Some(a) => match a.rsplit_once('/') {
            Some((id, m)) if !id.is_empty() && !m.is_empty() => {
                (Target::Object(id.to_string()), m.to_string())
            }
            _ => return usage("--action takes OBJECT_ID/METHOD", args.format),
        },
        None => (Target::Root, args.method.clone()),
    };
    let (backend, simulator) = match choose_backend(&args) {
        Ok(b) => b,
        Err(e) => return usage(&e, args.format),
    };
    let model = match host::read_model(model_path) {
        Ok(m) => m,
        Err(host::ModelError::Io(e)) => return usage(&e, args.format),
        Err(host::ModelError::Invalid(e)) => {
            return fail(crate::report::INVALID, "model", &e, args.format)
        }
    };
    let lib = match load_library(&args, &model) {
        Ok(lib) => lib,
        Err(code) => return code,
    };
    let text = args.format == Format::Text;
    if text {
        say!(
            "vetro run: {} package(s), backend {} ({})",
            args.packages.len(),
            args.cloud.backend.name(),
            args.cloud.describe()
        );
    }
    // Progress as it happens: stdout in text mode, stderr in JSON mode.
    let sink: vetro_dsl::cloud::EventSink = Box::new(move |e: &Event| {
        let line = format!("[{}] {}", e.kind, e.message);
        if text {
            say!("{line}");
        } else {
            eprintln!("{line}");
        }
    });
    let host = lib.host(backend, Some(sink));
    let outcome = match host::run(&lib, &model, &target, &method, host) {
        Ok(o) => o,
        Err(e) => {
            match args.format {
                Format::Text => print_exception(&lib, &e, "the run"),
                Format::Json => say!(
                    "{}",
                    serde_json::json!({"ok": false, "result": null, "exception": exception_json(&e)})
                ),
            }
            return ExitCode::from(crate::report::INVALID);
        }
    };
    if let Some(cloud) = &simulator {
        for rule in cloud.borrow().unused_agent_results() {
            eprintln!("vetro run: warning: --agent-results rule {rule} matched no agent call");
        }
    }
    if let (Some(path), Some(cloud)) = (&args.cloud_state, &simulator) {
        let state = serde_json::to_string_pretty(&cloud.borrow().save()).unwrap_or_default();
        if let Err(e) = write_atomically(path, &(state + "\n")) {
            return usage(&format!("{}: {e}", path.display()), args.format);
        }
    }
    if let Some(path) = &args.heat_template {
        let template = outcome.stacks.last().map(|(_, t)| t.clone());
        match template {
            Some(t) => {
                let body = serde_json::to_string_pretty(&t).unwrap_or_default();
                if let Err(e) = std::fs::write(path, body + "\n") {
                    return usage(&format!("{}: {e}", path.display()), args.format);
                }
                if text {
                    say!("heat template written to {}", path.display());
                }
            }
            None => eprintln!(
                "vetro run: no stack was pushed; {} not written",
                path.display()
            ),
        }
    }
    let failed = outcome.result.is_err();
    match args.format {
        Format::Text => {
            match &outcome.result {
                Ok(v) => say!("result: {v}"),
                Err(e) => print_exception(&lib, e, &method),
            }
            // The deployment's objects once (`ObjectsCopy`, the reference's
            // copy for the next deployment, is in `--format json`).
            let objects = outcome.model.get("Objects").unwrap_or(&outcome.model);
            say!("object model:");
            say!(
                "{}",
                serde_json::to_string_pretty(objects).unwrap_or_default()
            );
        }
        Format::Json => {
            let events: Vec<_> = outcome
                .events
                .iter()
                .map(|e| serde_json::json!({"kind": e.kind.as_str(), "object": e.object, "message": e.message}))
                .collect();
            let (result, exception) = match &outcome.result {
                Ok(v) => (v.clone(), serde_json::Value::Null),
                Err(e) => (serde_json::Value::Null, exception_json(e)),
            };
            let stacks: serde_json::Map<_, _> = outcome.stacks.iter().cloned().collect();
            let out = serde_json::json!({
                "ok": !failed, "result": result, "exception": exception,
                "events": events, "model": outcome.model, "stacks": stacks,
            });
            say!("{out}");
        }
    }
    if failed {
        ExitCode::from(crate::report::INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

type ChosenBackend = (
    Box<dyn vetro_dsl::cloud::CloudBackend>,
    Option<Rc<RefCell<SimulatedCloud>>>,
);

/// The backend a run deploys to, and the simulator behind it when it is
/// one (kept to save its state and to name unused agent results).
fn choose_backend(args: &Args) -> Result<ChosenBackend, String> {
    let simulated = args.cloud.backend == super::cloud::BackendKind::Simulated;
    if args.cloud_state.is_some() && !simulated {
        return Err(
            "--cloud-state keeps the simulator's state: it needs --backend simulated".into(),
        );
    }
    if !simulated {
        return Ok((args.cloud.backend()?, None));
    }
    let cloud = match &args.cloud_state {
        Some(path) => load_cloud_state(path)?,
        None => Rc::new(RefCell::new(SimulatedCloud::new())),
    };
    cloud
        .borrow_mut()
        .set_agent_results(args.cloud.agent_results()?);
    Ok((Box::new(cloud.clone()), Some(cloud)))
}

/// The simulated cloud of an earlier run, or a new one when `path` is absent.
/// A file that is not a simulator state is refused (and so never overwritten).
fn load_cloud_state(path: &Path) -> Result<Rc<RefCell<SimulatedCloud>>, String> {
    let refuse = |e: String| {
        format!(
            "{}: {e}; refusing to use it as --cloud-state (it would be overwritten)",
            path.display()
        )
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Rc::new(RefCell::new(SimulatedCloud::new())))
        }
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    // Only a regular file can be replaced in one step; a pipe or a device
    // (/dev/zero, /dev/full) would not even end when read, nor be a state.
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "is a directory"
        } else {
            "is not a regular file (a device, a pipe or a socket)"
        };
        return Err(format!(
            "{}: {kind}; --cloud-state takes a regular file, read before the run and replaced after it",
            path.display()
        ));
    }
    // At most the input size limit (a state file is small; /dev/zero is not).
    let cloud = match vetro_yaml::read_bytes(path, vetro_yaml::DEFAULT_MAX_INPUT) {
        Ok(bytes) => {
            let state: serde_json::Value =
                serde_json::from_slice(&bytes).map_err(|e| refuse(format!("not JSON ({e})")))?;
            SimulatedCloud::restore(&state).map_err(refuse)?
        }
        Err(d) => return Err(d.message),
    };
    Ok(Rc::new(RefCell::new(cloud)))
}

/// Replace `path` with `text` in one step: a crash or a full disk leaves the
/// old state or the new one, never half of one.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&tmp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn exception_json(e: &Exc) -> serde_json::Value {
    let frames: Vec<_> = e
        .frames()
        .iter()
        .map(|f| {
            serde_json::json!({"class": f.class, "method": f.method, "file": f.file,
                               "line": f.line, "column": f.column, "instruction": f.instruction})
        })
        .collect();
    serde_json::json!({"names": e.names(), "message": e.message(), "frames": frames})
}

/// An uncaught MuranoPL exception with its stack, innermost frame first, and
/// the source line of each frame when the file is found in a package.
pub fn print_exception(lib: &Library, e: &Exc, during: &str) {
    eprintln!(
        "error: uncaught exception in {during}: {}: {}",
        e.names().join(", "),
        vetro_diag::clip(&e.message())
    );
    for f in e.frames() {
        eprintln!(
            "  at {}::{} ({}:{}:{})",
            f.class, f.method, f.file, f.line, f.column
        );
        if let Some(line) = source_line(lib, &f.file, f.line) {
            eprintln!("     | {line}");
            if f.column > 0 {
                eprintln!("     | {}^", " ".repeat(f.column as usize - 1));
            }
        }
    }
}

fn source_line(lib: &Library, file: &str, line: u32) -> Option<String> {
    let n = (line as usize).checked_sub(1)?;
    if file == "<core>/cloud.yaml" {
        return vetro_dsl::cloud::CLOUD_YAML
            .lines()
            .nth(n)
            .map(str::to_string);
    }
    lib.roots.values().find_map(|root| {
        let text = std::fs::read_to_string(root.join(file)).ok()?;
        text.lines().nth(n).map(str::to_string)
    })
}
