//! `run_task`: one deployment, deletion, action or static action, from the
//! environment's stored model and cloud state to the new ones, with the
//! policy gate before the engine and status reports as they happen.

use crate::archive::ArchiveLimits;
use crate::backend::{self, Backend};
use crate::engine::{self, Call};
use crate::model;
use crate::policy::{self, Violation};
use crate::report::{Level, Outcome, ReportSink, StatusReport, Tally};
pub use crate::resolve::TaskError;
use crate::resolve::{self, PackageCache, PackageResolver, UsedPackage};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use vetro_diag::Severity;
use vetro_dsl::cloud::{Event, EventKind};
use vetro_dsl::host::Library;
use vetro_dsl::runtime::limits::{is_cancelled, Limits};
use vetro_dsl::runtime::types::Exc;

/// What a task does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TaskKind {
    /// Deploy the model (`deploy` on its root object).
    Deploy,
    /// Delete the environment: the model's objects become nothing, so what
    /// the previous deployment created is destroyed.
    Delete,
    /// Run an action (`Usage: Action`) of one object with named arguments.
    Action {
        object_id: String,
        method: String,
        args: Json,
    },
    /// Run a public static method of a class with named arguments.
    StaticAction {
        class_name: String,
        method: String,
        package_name: Option<String>,
        args: Json,
    },
}

impl TaskKind {
    /// How the task is named in its reports.
    fn noun(&self) -> String {
        match self {
            TaskKind::Deploy => "Deployment".into(),
            TaskKind::Delete => "Deletion".into(),
            TaskKind::Action { method, .. } | TaskKind::StaticAction { method, .. } => {
                format!("Action {method}")
            }
        }
    }

    /// Whether the policy gate applies (Murano validates every task with a model).
    fn is_gated(&self) -> bool {
        matches!(self, TaskKind::Deploy | TaskKind::Action { .. })
    }
}

/// Limits of one task.
#[derive(Clone, Debug, Default)]
pub struct TaskLimits {
    /// The engine session (steps, time, memory).
    pub engine: Limits,
    /// Unpacking the packages.
    pub archive: ArchiveLimits,
}

/// Everything one task needs.
pub struct Task<'a> {
    pub kind: TaskKind,
    /// The environment's model, Murano form: `{"Objects": ..., "ObjectsCopy": ...,
    /// "Attributes": [...]}`, the root's apps under `services` (or `applications`).
    pub model: Json,
    /// The simulated cloud as the previous task of the environment left it.
    pub cloud_state: Option<Json>,
    /// The cloud the engine deploys to.
    pub backend: Backend,
    /// Owner of the environment (for the policy's `murano:objects`).
    pub project_id: Option<String>,
    /// The project's policy (Congress rules), checked before the engine runs.
    pub policy: Option<String>,
    pub resolver: &'a dyn PackageResolver,
    pub cache: &'a PackageCache,
    /// Set from any thread to stop the engine at its next step.
    pub cancel: Arc<AtomicBool>,
    pub limits: TaskLimits,
}

/// An action's result, as Murano's `GET .../actions/{task_id}` answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionResult {
    pub result: Json,
    #[serde(rename = "isException")]
    pub is_exception: bool,
}

/// What a task produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskOutput {
    pub outcome: Outcome,
    /// The model after the task (Murano form, `_actions` included). When the
    /// task failed this is the attempted model; the last good one stays the
    /// environment's.
    pub model: Json,
    /// The simulated cloud after the task (what exists, success or not);
    /// `None` for static actions, which run without an environment. With
    /// another backend, the state the task was given, unchanged.
    pub cloud_state: Option<Json>,
    pub result: ActionResult,
    /// What the policy refused (the task then failed before the engine ran).
    pub violations: Vec<Violation>,
    /// The packages the task loaded, for pinning the environment's versions
    /// (known from [`prepare`], so an engine process does not send them back).
    #[serde(skip_deserializing)]
    pub packages: Vec<UsedPackage>,
}

/// The engine's limits as plain data, to hand to another process.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineLimits {
    pub max_steps: Option<u64>,
    pub max_time_ms: Option<u64>,
    pub max_memory: Option<usize>,
    pub max_green_threads: Option<usize>,
}

impl From<&Limits> for EngineLimits {
    fn from(l: &Limits) -> EngineLimits {
        EngineLimits {
            max_steps: l.max_steps,
            max_time_ms: l
                .max_time
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
            max_memory: l.max_memory,
            max_green_threads: l.max_green_threads,
        }
    }
}

impl From<&EngineLimits> for Limits {
    fn from(l: &EngineLimits) -> Limits {
        Limits {
            max_steps: l.max_steps,
            max_time: l.max_time_ms.map(Duration::from_millis),
            max_memory: l.max_memory,
            max_green_threads: l.max_green_threads,
            cancel: None,
        }
    }
}

/// A task with its packages found and unpacked: everything the engine needs,
/// as plain data (the package folders by path), so that it can run in this
/// process or be sent to an engine process ([`crate::child`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prepared {
    pub kind: TaskKind,
    pub model: Json,
    pub cloud_state: Option<Json>,
    /// Credentials included: the task's message to an engine process travels
    /// on a pipe, never in arguments or the environment.
    #[serde(default)]
    pub backend: Backend,
    pub project_id: Option<String>,
    pub policy: Option<String>,
    /// The unpacked package folders, in load order.
    pub roots: Vec<PathBuf>,
    #[serde(skip)]
    pub packages: Vec<UsedPackage>,
    pub limits: EngineLimits,
}

/// Sends reports to the sink and counts their levels.
struct Reporter {
    sink: ReportSink,
    tally: Tally,
    env_id: String,
}

impl Reporter {
    fn send(&mut self, r: StatusReport) {
        self.tally.add(r.level);
        (self.sink)(&r);
    }

    fn send_event(&mut self, e: &Event) {
        let level = match e.kind {
            EventKind::Report => Level::Info,
            EventKind::ReportError => Level::Error,
            _ => return,
        };
        let entity = e.object.clone().unwrap_or_else(|| self.env_id.clone());
        self.send(StatusReport::new(entity, level, e.message.clone()));
    }
}

type Shared = Rc<RefCell<Reporter>>;

/// Run one task. Every problem of the task itself (a package that does not
/// load, a policy violation, an exception, a cancellation) ends in a
/// [`TaskOutput`] with error reports; `Err` only when packages could not be had.
pub fn run_task(task: Task<'_>, sink: ReportSink) -> Result<TaskOutput, TaskError> {
    let prepared = prepare(&task)?;
    Ok(run_prepared(&prepared, task.cancel.clone(), sink))
}

/// The embedder's half of a task: find and unpack its packages.
pub fn prepare(task: &Task<'_>) -> Result<Prepared, TaskError> {
    let engine_model = model::to_engine(&task.model, task.kind == TaskKind::Delete);
    let resolved = resolve::resolve(
        task.resolver,
        task.cache,
        &task.limits.archive,
        &wanted(&task.kind, &engine_model),
    )?;
    Ok(Prepared {
        kind: task.kind.clone(),
        model: task.model.clone(),
        cloud_state: task.cloud_state.clone(),
        backend: task.backend.clone(),
        project_id: task.project_id.clone(),
        policy: task.policy.clone(),
        roots: resolved.roots,
        packages: resolved.used,
        limits: EngineLimits::from(&task.limits.engine),
    })
}

/// The untrusted half of a task: load the packages, check the policy, run
/// the engine. Setting `cancel` from any thread stops it at its next step.
pub fn run_prepared(p: &Prepared, cancel: Arc<AtomicBool>, sink: ReportSink) -> TaskOutput {
    let services = model::uses_services(&p.model);
    let engine_model = model::to_engine(&p.model, p.kind == TaskKind::Delete);
    let env_id = match &p.kind {
        TaskKind::StaticAction { class_name, .. } => class_name.clone(),
        _ => model::root_id(&p.model).unwrap_or_default(),
    };
    let reporter: Shared = Rc::new(RefCell::new(Reporter {
        sink,
        tally: Tally::default(),
        env_id,
    }));
    let mut out = TaskOutput {
        outcome: Outcome::CompletedWithErrors,
        model: p.model.clone(),
        cloud_state: match p.kind {
            TaskKind::StaticAction { .. } => None,
            _ => p.cloud_state.clone(),
        },
        result: ActionResult {
            result: Json::Null,
            is_exception: false,
        },
        violations: Vec::new(),
        packages: p.packages.clone(),
    };
    let mut lib = Library::load(&p.roots);
    lib.limits = Limits::from(&p.limits);
    if let Some(problem) = lib
        .problems()
        .into_iter()
        .find(|d| d.severity == Severity::Error)
    {
        let text = format!(
            "a package of the deployment does not load: {}",
            problem.message
        );
        fail(&reporter, &mut out, text, None);
        return finish(&p.kind, &reporter, out);
    }
    if !gate(p, &engine_model, &lib, &reporter, &mut out) {
        return finish(&p.kind, &reporter, out);
    }
    execute(
        p,
        &engine_model,
        &lib,
        &reporter,
        &mut out,
        services,
        cancel,
    );
    finish(&p.kind, &reporter, out)
}

/// Classes and package names the task needs.
fn wanted(kind: &TaskKind, engine_model: &Json) -> resolve::Wanted {
    let mut wanted = resolve::Wanted::default();
    if let TaskKind::StaticAction {
        class_name,
        package_name,
        ..
    } = kind
    {
        wanted.class(class_name);
        wanted.packages.extend(
            package_name
                .iter()
                .map(|p| (p.clone(), vetro_dsl::package::VersionSpec::any())),
        );
    } else {
        for key in ["Objects", "ObjectsCopy"] {
            if let Some(tree) = engine_model.get(key) {
                wanted
                    .classes
                    .extend(vetro_dsl::package::ClassRef::in_model(tree));
            }
        }
    }
    wanted
}

/// An error report on the root plus an exception result.
fn fail(reporter: &Shared, out: &mut TaskOutput, text: String, details: Option<String>) {
    let mut r = reporter.borrow_mut();
    let mut report = StatusReport::new(r.env_id.clone(), Level::Error, text.clone());
    report.details = details.clone();
    r.send(report);
    out.result = ActionResult {
        result: serde_json::json!({"message": text, "details": details.unwrap_or_default()}),
        is_exception: true,
    };
}

/// The policy gate; `false` when the task must stop here.
fn gate(
    task: &Prepared,
    engine_model: &Json,
    lib: &Library,
    reporter: &Shared,
    out: &mut TaskOutput,
) -> bool {
    let (Some(rules), true) = (&task.policy, task.kind.is_gated()) else {
        return true;
    };
    let Some(objects) = engine_model.get("Objects").filter(|o| !o.is_null()) else {
        return true;
    };
    let classes = policy::hierarchy(&lib.packages);
    match policy::violations(objects, rules, classes, task.project_id.as_deref()) {
        Err(e) => {
            fail(reporter, out, format!("policy check failed: {e}"), None);
            false
        }
        Ok(found) if found.is_empty() => true,
        Ok(found) => {
            {
                let mut r = reporter.borrow_mut();
                for v in &found {
                    r.send(StatusReport::new(
                        v.object_id.clone(),
                        Level::Error,
                        v.message.clone(),
                    ));
                }
            }
            let lines: Vec<String> = found.iter().map(|v| format!("  {}", v.message)).collect();
            out.result = ActionResult {
                result: serde_json::json!({
                    "message": format!("Murano object model validation failed:\n{}", lines.join("\n")),
                    "violations": found,
                }),
                is_exception: true,
            };
            out.violations = found;
            false
        }
    }
}

/// The engine run itself.
fn execute(
    task: &Prepared,
    engine_model: &Json,
    lib: &Library,
    reporter: &Shared,
    out: &mut TaskOutput,
    services: bool,
    cancel: Arc<AtomicBool>,
) {
    let opened = match backend::open(&task.backend, task.cloud_state.as_ref()) {
        Ok(o) => o,
        Err(e) => {
            fail(reporter, out, e, None);
            return;
        }
    };
    let events = reporter.clone();
    let sink = Box::new(move |e: &Event| events.borrow_mut().send_event(e));
    let call = match &task.kind {
        TaskKind::Deploy | TaskKind::Delete => Call::Root("deploy".into()),
        TaskKind::Action {
            object_id,
            method,
            args,
        } => Call::Action {
            object_id: object_id.clone(),
            method: method.clone(),
            args: args.clone(),
        },
        TaskKind::StaticAction {
            class_name,
            method,
            args,
            ..
        } => Call::Static {
            class: class_name.clone(),
            method: method.clone(),
            args: args.clone(),
        },
    };
    let session = engine::run(lib, engine_model, &call, opened.backend, sink, cancel);
    if let (Some(cloud), false) = (
        opened.simulator,
        matches!(task.kind, TaskKind::StaticAction { .. }),
    ) {
        out.cloud_state = Some(cloud.borrow().save());
    }
    if let Some(m) = session.model {
        out.model = model::from_engine(m, services);
    }
    match session.result {
        Ok(v) => {
            out.result.result = v;
            // Errors reported by the packages still fail the task (see finish).
        }
        Err(e) if is_cancelled(&e) => out.outcome = Outcome::Cancelled,
        Err(e) => fail(reporter, out, e.message(), Some(traceback(&e))),
    }
}

fn traceback(e: &Exc) -> String {
    let mut text = e.names().join(", ");
    for f in e.frames() {
        text.push_str(&format!(
            "\n  at {}::{} ({}:{}:{})",
            f.class, f.method, f.file, f.line, f.column
        ));
    }
    text
}

/// The outcome from the reports, and the closing report.
fn finish(kind: &TaskKind, reporter: &Shared, mut out: TaskOutput) -> TaskOutput {
    let mut r = reporter.borrow_mut();
    let noun = kind.noun();
    let env = r.env_id.clone();
    if out.outcome == Outcome::Cancelled {
        r.send(StatusReport::new(
            env,
            Level::Warning,
            format!("{noun} cancelled"),
        ));
        return out;
    }
    out.outcome = r.tally.outcome();
    let suffix = match out.outcome {
        Outcome::CompletedWithErrors => " with errors",
        Outcome::CompletedWithWarnings => " with warnings",
        _ => "",
    };
    // The closing report is info: it must not change the state it announces.
    r.send(StatusReport::new(
        env,
        Level::Info,
        format!("{noun} finished{suffix}"),
    ));
    out
}
