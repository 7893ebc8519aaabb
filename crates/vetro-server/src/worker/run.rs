//! One task from claim to commit: gather its inputs, find and unpack its
//! packages on a blocking thread, run its engine (`engine.rs`), store its
//! reports and keep the lease while it runs, then commit the result (or
//! hand the task back when the worker stops).

use super::engine::{self, Event, Stop};
use super::{CatalogResolver, Worker};
use serde_json::{json, Value};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use tokio::sync::watch;
use vetro_deploy::{Outcome, PackageCache, Prepared, StatusReport, TaskOutput};
use vetro_store::queue::{NewReport, Task, TaskKind};
use vetro_store::tasks::{Completion, Finish, LeaseState};

/// What the engine needs, read from the store before it starts.
struct Inputs {
    kind: vetro_deploy::TaskKind,
    model: Value,
    cloud_state: Option<Value>,
    policy: Option<String>,
    resolver: CatalogResolver,
}

/// How the engine run ended from the worker's side.
enum Ending {
    /// The engine finished (or failed) on its own or by a user's cancel.
    Done(Box<Result<TaskOutput, String>>),
    /// The worker lost its lease: another worker owns the task now.
    LeaseLost,
    /// The worker is shutting down: the task goes back to the queue.
    Released,
}

pub(super) async fn execute(w: &Worker, task: Task, shutdown: &mut watch::Receiver<bool>) {
    tracing::info!(worker = %w.id, task = %task.id, kind = task.kind.as_str(), attempt = task.attempts, "task claimed");
    let completion = if task.cancel_requested {
        Some(cancelled_before_start(w, &task).await)
    } else {
        match inputs(w, &task).await {
            Err(e) => Some(failure(w, &task, format!("the task cannot start: {e}")).await),
            Ok(inputs) => match supervise(w, &task, inputs, shutdown).await {
                Ending::Done(out) => match (*out).and_then(|out| within_output_quota(w, out)) {
                    Ok(out) => Some(completion_of(out)),
                    Err(e) => Some(failure(w, &task, e).await),
                },
                Ending::LeaseLost => {
                    tracing::warn!(task = %task.id, "lease lost while running; result discarded");
                    None
                }
                Ending::Released => {
                    if let Err(e) = w.store.release_task(&task.id, &w.id).await {
                        tracing::warn!(task = %task.id, "cannot hand the task back: {e}");
                    }
                    None
                }
            },
        }
    };
    let Some(c) = completion else { return };
    match w.store.complete_task(&task, &w.id, &c).await {
        Ok(true) => {
            tracing::info!(task = %task.id, finish = ?c.finish, "task finished");
            super::trust::end(w, &task).await;
        }
        Ok(false) => {
            tracing::warn!(task = %task.id, "lease lost before the commit; result discarded")
        }
        Err(e) => tracing::error!(task = %task.id, "cannot commit the task's result: {e}"),
    }
}

/// The engine's task kind from the stored one and its payload.
fn engine_kind(task: &Task) -> Result<vetro_deploy::TaskKind, String> {
    let p = &task.payload;
    let text = |key: &str| -> Result<String, String> {
        p.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("the task's payload has no '{key}'"))
    };
    Ok(match task.kind {
        TaskKind::Deploy => vetro_deploy::TaskKind::Deploy,
        TaskKind::Delete => vetro_deploy::TaskKind::Delete,
        TaskKind::Action => vetro_deploy::TaskKind::Action {
            object_id: text("object_id")?,
            method: text("method")?,
            args: p.get("args").cloned().unwrap_or(Value::Null),
        },
        TaskKind::StaticAction => vetro_deploy::TaskKind::StaticAction {
            class_name: text("className")?,
            method: text("methodName")?,
            package_name: p
                .get("packageName")
                .and_then(Value::as_str)
                .map(str::to_string),
            args: p.get("parameters").cloned().unwrap_or(Value::Null),
        },
    })
}

async fn inputs(w: &Worker, task: &Task) -> Result<Inputs, String> {
    let kind = engine_kind(task)?;
    let store = &w.store;
    let model = match &task.session_id {
        Some(s) => store.get_session(s).await.map_err(|e| e.to_string())?.model,
        None => Value::Null,
    };
    let cloud_state = match &task.environment_id {
        Some(env) => store.cloud_state(env).await.map_err(|e| e.to_string())?,
        None => None,
    };
    let policy = match store.policy(&task.project_id).await {
        Ok(Some(p)) => Some(p),
        Ok(None) => w.config.default_policy.as_deref().map(str::to_string),
        Err(e) => return Err(e.to_string()),
    };
    let pinned = store
        .pinned_packages(&task.id)
        .await
        .map_err(|e| e.to_string())?;
    let resolver = CatalogResolver::new(
        store.clone(),
        tokio::runtime::Handle::current(),
        task.project_id.clone(),
        Some(task.id.clone()),
        &pinned,
    );
    Ok(Inputs {
        kind,
        model,
        cloud_state,
        policy,
        resolver,
    })
}

/// Finds and unpacks the task's packages (the catalog lookups block on
/// the runtime, so this runs on a blocking thread).
async fn prepare(w: &Worker, task: &Task, inputs: Inputs) -> Result<Prepared, String> {
    let config = w.config.clone();
    let project_id = task.project_id.clone();
    let backend = super::trust::acting_for(&config.backend, task.trust_id.as_deref());
    let job = tokio::task::spawn_blocking(move || {
        let cache = PackageCache::new(&config.packages_dir);
        let engine_task = vetro_deploy::Task {
            kind: inputs.kind,
            model: inputs.model,
            cloud_state: inputs.cloud_state,
            backend,
            project_id: Some(project_id),
            policy: inputs.policy,
            resolver: &inputs.resolver,
            cache: &cache,
            cancel: Arc::new(AtomicBool::new(false)),
            limits: config.limits.clone(),
        };
        vetro_deploy::prepare(&engine_task).map_err(|e| e.to_string())
    });
    match job.await {
        Ok(r) => r,
        Err(e) => Err(format!("the package lookup stopped unexpectedly: {e}")),
    }
}

/// Runs the engine and, meanwhile, stores its reports, renews the lease and
/// watches for a cancel request, the worker's shutdown and the task's
/// wall-clock limit.
async fn supervise(
    w: &Worker,
    task: &Task,
    inputs: Inputs,
    shutdown: &mut watch::Receiver<bool>,
) -> Ending {
    let deadline = tokio::time::Instant::now() + w.config.wall_clock;
    let prepared = match prepare(w, task, inputs).await {
        Ok(p) => p,
        Err(e) => return Ending::Done(Box::new(Err(format!("the task cannot start: {e}")))),
    };
    let mut engine = engine::start(&w.config.runner, prepared);
    let stop = |how: Stop| {
        engine.stop.send_if_modified(|s| {
            // A kill overrides a cancel; nothing undoes either.
            let more = matches!((*s, how), (Stop::Running, _) | (Stop::Cancel, Stop::Kill));
            if more {
                *s = how;
            }
            more
        });
    };
    // Renewal doubles as the cancel check, so a cancel takes effect within a second.
    let mut renew =
        tokio::time::interval((w.config.lease / 3).min(std::time::Duration::from_secs(1)));
    renew.tick().await;
    let (mut lost, mut released, mut timed_out) = (false, false, false);
    let mut reports = ReportTally::default();
    let mut over_quota: Option<String> = None;
    let out = loop {
        tokio::select! {
            ev = engine.events.recv() => match ev {
                Some(Event::Report(r)) => {
                    if over_quota.is_some() {
                        continue;
                    }
                    if let Err(e) = reports.add(&w.config.quotas, &r) {
                        over_quota = Some(format!("the task stopped: {e}"));
                        stop(Stop::Kill);
                    } else if !lost && !store_report(w, task, &r).await {
                        lost = true;
                        stop(Stop::Cancel);
                    }
                }
                Some(Event::Done(out)) => break out,
                None => break Err("the engine stopped without a result".to_string()),
            },
            _ = renew.tick(), if !lost => match w.store.renew_lease(&task.id, &w.id, w.config.lease).await {
                Ok(LeaseState::Held { cancel: true }) => stop(Stop::Cancel),
                Ok(LeaseState::Held { cancel: false }) => {}
                Ok(LeaseState::Lost) => {
                    lost = true;
                    stop(Stop::Cancel);
                }
                Err(e) => tracing::warn!(task = %task.id, "cannot renew the lease: {e}"),
            },
            changed = shutdown.changed(), if !released => {
                if changed.is_err() || *shutdown.borrow() {
                    released = true;
                    stop(Stop::Cancel);
                }
            }
            _ = tokio::time::sleep_until(deadline), if !timed_out => {
                timed_out = true;
                stop(Stop::Kill);
            }
        }
    };
    if lost {
        Ending::LeaseLost
    } else if let Some(message) = over_quota {
        Ending::Done(Box::new(Err(message)))
    } else if released {
        Ending::Released
    } else if timed_out {
        let limit = w.config.wall_clock.as_secs();
        Ending::Done(Box::new(Err(format!(
            "the task ran longer than its wall-clock limit of {limit} s and was stopped"
        ))))
    } else {
        Ending::Done(Box::new(out))
    }
}

/// The status reports a task has stored so far, against the report quotas.
#[derive(Default)]
struct ReportTally {
    count: u64,
    bytes: u64,
}

impl ReportTally {
    /// Counts one more report, or says which quota it would go past.
    fn add(
        &mut self,
        quotas: &vetro_store::quotas::Quotas,
        r: &StatusReport,
    ) -> Result<(), vetro_store::quotas::OverQuota> {
        let text = (r.text.len() + r.details.as_ref().map_or(0, |d| d.len())) as u64;
        quotas.check_report(self.count, self.bytes, text)?;
        self.count += 1;
        self.bytes += text;
        Ok(())
    }
}

/// The task's output when its model and result fit the quotas, else the
/// failure message naming the quota.
fn within_output_quota(w: &Worker, out: TaskOutput) -> Result<TaskOutput, String> {
    let size = |v: &serde_json::Value| serde_json::to_vec(v).map_or(0, |b| b.len() as u64);
    w.config
        .quotas
        .check_task_output(size(&out.model), size(&out.result.result))
        .map(|()| out)
        .map_err(|e| format!("the task's output was not stored: {e}"))
}

/// Stores one engine report; `false` when the lease is gone.
async fn store_report(w: &Worker, task: &Task, r: &StatusReport) -> bool {
    let env = task.environment_id.as_deref().unwrap_or_default();
    let report = NewReport {
        entity_id: r.entity_id.clone(),
        entity: if r.entity_id == env {
            "environment"
        } else {
            "object"
        }
        .into(),
        text: r.text.clone(),
        level: r.level.as_str().into(),
        details: r.details.clone(),
    };
    match w.store.report_as(&task.id, &w.id, &report).await {
        Ok(held) => held,
        Err(e) => {
            tracing::warn!(task = %task.id, "cannot store a status report: {e}");
            true
        }
    }
}

fn completion_of(out: TaskOutput) -> Completion {
    let finish = match out.outcome {
        Outcome::Cancelled => Finish::Cancelled,
        o if o.is_good() => Finish::Succeeded,
        _ => Finish::Failed,
    };
    let is_exception = out.result.is_exception;
    Completion {
        finish,
        result: json!({"result": out.result.result, "isException": is_exception}),
        is_exception,
        model: Some(out.model),
        cloud_state: out.cloud_state,
    }
}

/// A task that failed outside the engine, with an error report saying why.
async fn failure(w: &Worker, task: &Task, message: String) -> Completion {
    report(w, task, "error", &message).await;
    Completion {
        finish: Finish::Failed,
        result: json!({"result": {"message": message}, "isException": true}),
        is_exception: true,
        model: None,
        cloud_state: None,
    }
}

async fn cancelled_before_start(w: &Worker, task: &Task) -> Completion {
    report(w, task, "warning", "cancelled before it started").await;
    Completion {
        finish: Finish::Cancelled,
        result: json!({"result": null, "isException": false}),
        is_exception: false,
        model: None,
        cloud_state: None,
    }
}

async fn report(w: &Worker, task: &Task, level: &str, text: &str) {
    let r = NewReport {
        entity_id: task.environment_id.clone().unwrap_or_default(),
        entity: "environment".into(),
        text: text.into(),
        level: level.into(),
        details: None,
    };
    if let Err(e) = w.store.report_as(&task.id, &w.id, &r).await {
        tracing::warn!(task = %task.id, "cannot store a status report: {e}");
    }
}
