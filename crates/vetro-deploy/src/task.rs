//! `run_task`: one deployment, deletion, action or static action, from the
//! environment's stored model and cloud state to the new ones, with the
//! policy gate before the engine and status reports as they happen.

use crate::archive::ArchiveLimits;
use crate::engine::{self, Call};
use crate::model;
use crate::policy::{self, Violation};
use crate::report::{Level, Outcome, ReportSink, StatusReport, Tally};
use crate::resolve::{self, PackageCache, PackageResolver, UsedPackage};
use serde::Serialize;
use serde_json::Value as Json;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use vetro_diag::Severity;
use vetro_dsl::cloud::{Event, SimulatedCloud};
use vetro_dsl::host::Library;
use vetro_dsl::runtime::limits::{is_cancelled, Limits};
use vetro_dsl::runtime::types::Exc;

/// What a task does.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ActionResult {
    pub result: Json,
    #[serde(rename = "isException")]
    pub is_exception: bool,
}

/// What a task produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskOutput {
    pub outcome: Outcome,
    /// The model after the task (Murano form, `_actions` included). When the
    /// task failed this is the attempted model; the last good one stays the
    /// environment's.
    pub model: Json,
    /// The simulated cloud after the task (what exists, success or not);
    /// `None` for static actions, which run without an environment.
    pub cloud_state: Option<Json>,
    pub result: ActionResult,
    /// What the policy refused (the task then failed before the engine ran).
    pub violations: Vec<Violation>,
    /// The packages the task loaded, for pinning the environment's versions.
    pub packages: Vec<UsedPackage>,
}

/// A failure of the embedder's side (package lookup, the package cache), not
/// of the task: the task did not run and may be retried.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskError(pub String);

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
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
        let level = match e.kind.as_str() {
            "report" => Level::Info,
            "report-error" => Level::Error,
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
    let services = model::uses_services(&task.model);
    let engine_model = model::to_engine(&task.model, task.kind == TaskKind::Delete);
    let env_id = match &task.kind {
        TaskKind::StaticAction { class_name, .. } => class_name.clone(),
        _ => model::root_id(&task.model).unwrap_or_default(),
    };
    let reporter: Shared = Rc::new(RefCell::new(Reporter {
        sink,
        tally: Tally::default(),
        env_id,
    }));
    let (classes, names) = wanted(&task.kind, &engine_model);
    let resolved = resolve::resolve(
        task.resolver,
        task.cache,
        &task.limits.archive,
        &classes,
        &names,
    )
    .map_err(TaskError)?;
    let mut out = TaskOutput {
        outcome: Outcome::CompletedWithErrors,
        model: task.model.clone(),
        cloud_state: match task.kind {
            TaskKind::StaticAction { .. } => None,
            _ => task.cloud_state.clone(),
        },
        result: ActionResult {
            result: Json::Null,
            is_exception: false,
        },
        violations: Vec::new(),
        packages: resolved.used,
    };
    let mut lib = Library::load(&resolved.roots);
    lib.limits = task.limits.engine.clone();
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
        return Ok(finish(&task.kind, &reporter, out));
    }
    if !gate(&task, &engine_model, &lib, &reporter, &mut out) {
        return Ok(finish(&task.kind, &reporter, out));
    }
    execute(&task, &engine_model, &lib, &reporter, &mut out, services);
    Ok(finish(&task.kind, &reporter, out))
}

/// Classes and package names the task needs.
fn wanted(kind: &TaskKind, engine_model: &Json) -> (Vec<String>, Vec<String>) {
    let mut classes = Vec::new();
    let mut names = Vec::new();
    if let TaskKind::StaticAction {
        class_name,
        package_name,
        ..
    } = kind
    {
        classes.push(class_name.clone());
        names.extend(package_name.iter().cloned());
    } else {
        for key in ["Objects", "ObjectsCopy"] {
            if let Some(tree) = engine_model.get(key) {
                resolve::model_classes(tree, &mut classes);
            }
        }
    }
    (classes, names)
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
    task: &Task<'_>,
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
    task: &Task<'_>,
    engine_model: &Json,
    lib: &Library,
    reporter: &Shared,
    out: &mut TaskOutput,
    services: bool,
) {
    let cloud = match &task.cloud_state {
        Some(state) if !state.is_null() => match SimulatedCloud::restore(state) {
            Ok(c) => c,
            Err(e) => {
                fail(
                    reporter,
                    out,
                    format!("the stored cloud state does not load: {e}"),
                    None,
                );
                return;
            }
        },
        _ => SimulatedCloud::new(),
    };
    let cloud = Rc::new(RefCell::new(cloud));
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
    let session = engine::run(
        lib,
        engine_model,
        &call,
        cloud.clone(),
        sink,
        task.cancel.clone(),
    );
    if !matches!(task.kind, TaskKind::StaticAction { .. }) {
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
