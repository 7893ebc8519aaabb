//! Tasks as the API sees them: queueing deploy, delete and action runs, and
//! reading deployments, their status reports and action results.
//!
//! The worker side (claiming a queued task, renewing its lease, committing the
//! result, reaping expired leases) lives in [`crate::tasks`]. What the worker reads
//! and writes from here: [`Task`] and [`Store::get_task`] (the row, with
//! `payload`, `description` and the session), [`add_report`] (a status report
//! keyed by task id), [`Store::pin_packages`] / [`Store::pinned_packages`]
//! (package versions fixed at the first claim), [`Store::policy`]
//! (`policies.rs`) and [`Store::cloud_state`] (`environments.rs`).
//!
//! Task states: `queued` → `running` → `succeeded` | `failed` | `cancelled`.
//! The unique index `tasks_one_active_per_environment` allows at most one
//! `queued` or `running` task per environment.

use crate::page::{Page, PageRequest};
use crate::{new_id, row, time, Result, Store, StoreError, Tx};
use serde_json::Value;
use sqlx::any::AnyRow;
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    Deploy,
    Delete,
    Action,
    StaticAction,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Deploy => "deploy",
            TaskKind::Delete => "delete",
            TaskKind::Action => "action",
            TaskKind::StaticAction => "static_action",
        }
    }

    pub fn parse(s: &str) -> Option<TaskKind> {
        Some(match s {
            "deploy" => TaskKind::Deploy,
            "delete" => TaskKind::Delete,
            "action" => TaskKind::Action,
            "static_action" => TaskKind::StaticAction,
            _ => return None,
        })
    }
}

pub const QUEUED: &str = "queued";
pub const RUNNING: &str = "running";
pub const SUCCEEDED: &str = "succeeded";
pub const FAILED: &str = "failed";
pub const CANCELLED: &str = "cancelled";

/// What the API submits.
#[derive(Clone, Debug)]
pub struct NewTask {
    pub project_id: String,
    pub environment_id: Option<String>,
    pub session_id: Option<String>,
    pub user_id: String,
    pub kind: TaskKind,
    /// `{"object_id", "method", "args"}` for deploy and action tasks;
    /// `{"className", "methodName", "packageName", "classVersion", "parameters"}`
    /// for static actions; null for deletions.
    pub payload: Value,
    /// The model's `Objects` at submit time (Murano's task description).
    pub description: Option<Value>,
    /// The Keystone trust the task acts through, when the service uses Keystone.
    pub trust_id: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Task {
    pub id: String,
    pub project_id: String,
    pub environment_id: Option<String>,
    pub session_id: Option<String>,
    pub user_id: String,
    pub kind: TaskKind,
    pub state: String,
    pub payload: Value,
    pub description: Option<Value>,
    /// The model a failed run tried to reach (the environment keeps its last good one).
    pub attempted_model: Option<Value>,
    /// `{"result": ..., "isException": bool}` once finished.
    pub result: Option<Value>,
    pub is_exception: bool,
    pub cancel_requested: bool,
    pub attempts: i64,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<String>,
    pub created: String,
    pub updated: String,
    pub started: Option<String>,
    pub finished: Option<String>,
    /// The Keystone trust the task acts through (a trust-scoped token for
    /// the project: `vetro_openstack::keystone::trust_credentials`).
    pub trust_id: Option<String>,
}

pub const TASK_COLUMNS: &str = "id, project_id, environment_id, session_id, user_id, kind, \
    state, payload, description, attempted_model, result, is_exception, cancel_requested, \
    attempts, lease_owner, lease_expires_at, created, updated, started, finished, trust_id";

pub fn task_from_row(r: &AnyRow) -> Result<Task> {
    let kind = row::text(r, "kind")?;
    Ok(Task {
        id: row::text(r, "id")?,
        project_id: row::text(r, "project_id")?,
        environment_id: row::opt_text(r, "environment_id")?,
        session_id: row::opt_text(r, "session_id")?,
        user_id: row::text(r, "user_id")?,
        kind: TaskKind::parse(&kind)
            .ok_or_else(|| StoreError::Invalid(format!("unknown task kind {kind}")))?,
        state: row::text(r, "state")?,
        payload: row::json(r, "payload")?,
        description: row::opt_json(r, "description")?,
        attempted_model: row::opt_json(r, "attempted_model")?,
        result: row::opt_json(r, "result")?,
        is_exception: row::flag(r, "is_exception")?,
        cancel_requested: row::flag(r, "cancel_requested")?,
        attempts: row::int(r, "attempts")?,
        lease_owner: row::opt_text(r, "lease_owner")?,
        lease_expires_at: row::opt_text(r, "lease_expires_at")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
        started: row::opt_text(r, "started")?,
        finished: row::opt_text(r, "finished")?,
        trust_id: row::opt_text(r, "trust_id")?,
    })
}

impl Task {
    pub fn is_finished(&self) -> bool {
        matches!(self.state.as_str(), SUCCEEDED | FAILED | CANCELLED)
    }
}

/// Queues a task inside `tx` with its first status report. A second active
/// task on the same environment is a conflict.
pub async fn enqueue_task(tx: &mut Tx<'_>, t: &NewTask) -> Result<String> {
    let id = new_id();
    let now = time::now();
    let res = sqlx::query(
        "INSERT INTO tasks (id, project_id, environment_id, session_id, user_id, kind, state, \
         payload, description, created, updated, trust_id) \
         VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9, $9, $10)",
    )
    .bind(&id)
    .bind(&t.project_id)
    .bind(t.environment_id.clone())
    .bind(t.session_id.clone())
    .bind(&t.user_id)
    .bind(t.kind.as_str())
    .bind(t.payload.to_string())
    .bind(t.description.as_ref().map(Value::to_string))
    .bind(&now)
    .bind(t.trust_id.clone())
    .execute(&mut **tx)
    .await
    .map_err(StoreError::from);
    match res {
        Err(e) if e.is_unique_violation() => {
            return Err(StoreError::Forbidden(
                "the environment already has a deployment or action in progress".into(),
            ))
        }
        other => {
            other?;
        }
    }
    let entity = t.environment_id.clone().unwrap_or_default();
    let what = match t.kind {
        TaskKind::Delete => "delete".to_string(),
        _ => t
            .payload
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("deploy")
            .to_string(),
    };
    if t.kind != TaskKind::StaticAction {
        add_report(
            tx,
            &id,
            &NewReport {
                entity_id: entity,
                entity: "environment".into(),
                text: format!("Action {what} is scheduled"),
                level: "info".into(),
                details: None,
            },
        )
        .await?;
    }
    Ok(id)
}

/// A status report to record.
#[derive(Clone, Debug)]
pub struct NewReport {
    pub entity_id: String,
    pub entity: String,
    pub text: String,
    /// `info`, `warning` or `error`.
    pub level: String,
    pub details: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Report {
    pub id: String,
    pub task_id: String,
    pub seq: i64,
    pub entity_id: String,
    pub entity: String,
    pub text: String,
    pub level: String,
    pub details: Option<String>,
    pub created: String,
    pub updated: String,
}

fn report_from_row(r: &AnyRow) -> Result<Report> {
    Ok(Report {
        id: row::text(r, "id")?,
        task_id: row::text(r, "task_id")?,
        seq: row::int(r, "seq")?,
        entity_id: row::text(r, "entity_id")?,
        entity: row::text(r, "entity")?,
        text: row::text(r, "text")?,
        level: row::text(r, "level")?,
        details: row::opt_text(r, "details")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
    })
}

const REPORT_COLUMNS: &str =
    "id, task_id, seq, entity_id, entity, text, level, details, created, updated";

/// Appends a status report to a task inside `tx`; returns its sequence number
/// within the task (1, 2, ...).
pub async fn add_report(tx: &mut Tx<'_>, task_id: &str, r: &NewReport) -> Result<i64> {
    let seq: i64 = {
        let row = sqlx::query(
            "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM status_reports WHERE task_id = $1",
        )
        .bind(task_id)
        .fetch_one(&mut **tx)
        .await?;
        row::int(&row, "next")?
    };
    let now = time::now();
    sqlx::query(
        "INSERT INTO status_reports (id, task_id, seq, entity_id, entity, text, level, details, \
         created, updated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
    )
    .bind(new_id())
    .bind(task_id)
    .bind(seq)
    .bind(&r.entity_id)
    .bind(&r.entity)
    .bind(&r.text)
    .bind(&r.level)
    .bind(r.details.clone())
    .bind(now)
    .execute(&mut **tx)
    .await?;
    Ok(seq)
}

/// A task with its report counts: the input of Murano's deployment `state`.
#[derive(Clone, Debug)]
pub struct Deployment {
    pub task: Task,
    pub errors: i64,
    pub warnings: i64,
}

impl Deployment {
    /// `running`, `running_w_warnings`, `running_w_errors`, `success`,
    /// `completed_w_warnings` or `completed_w_errors`.
    pub fn state(&self) -> &'static str {
        let errors = self.errors > 0
            || (self.task.is_finished()
                && (self.task.is_exception || self.task.state != SUCCEEDED));
        match (self.task.is_finished(), errors, self.warnings > 0) {
            (false, true, _) => "running_w_errors",
            (false, false, true) => "running_w_warnings",
            (false, false, false) => "running",
            (true, true, _) => "completed_w_errors",
            (true, false, true) => "completed_w_warnings",
            (true, false, false) => "success",
        }
    }
}

impl Store {
    pub async fn get_task(&self, id: &str) -> Result<Task> {
        let r = sqlx::query(&format!("SELECT {TASK_COLUMNS} FROM tasks WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        match r {
            Some(r) => task_from_row(&r),
            None => Err(StoreError::NotFound(format!("task {id}"))),
        }
    }

    /// The queued or running task of an environment, if any.
    pub async fn active_task(&self, environment_id: &str) -> Result<Option<String>> {
        let r = sqlx::query(
            "SELECT id FROM tasks WHERE environment_id = $1 AND state IN ('queued', 'running')",
        )
        .bind(environment_id)
        .fetch_optional(self.pool())
        .await?;
        r.map(|r| row::text(&r, "id")).transpose()
    }

    /// Queues a task on its own (actions and static actions).
    pub async fn enqueue(&self, t: &NewTask) -> Result<String> {
        let id = self
            .retry(|| async {
                let mut tx = self.begin().await?;
                let id = enqueue_task(&mut tx, t).await?;
                tx.commit().await?;
                Ok(id)
            })
            .await?;
        self.notify_queued();
        Ok(id)
    }

    /// One page of the status reports of one task, oldest first; with
    /// `entities`, only the reports about those objects.
    pub async fn reports_page(
        &self,
        task_id: &str,
        entities: Option<&HashSet<&str>>,
        page: &PageRequest,
    ) -> Result<Page<Report>> {
        let after = match &page.marker {
            None => 0,
            Some(m) => {
                let r =
                    sqlx::query("SELECT seq FROM status_reports WHERE id = $1 AND task_id = $2")
                        .bind(m)
                        .bind(task_id)
                        .fetch_optional(self.reader())
                        .await?
                        .ok_or_else(|| {
                            StoreError::Invalid(format!(
                                "marker '{m}' is not a report of this deployment"
                            ))
                        })?;
                row::int(&r, "seq")?
            }
        };
        let Some(entities) = entities else {
            let rows = sqlx::query(&format!(
                "SELECT {REPORT_COLUMNS} FROM status_reports WHERE task_id = $1 AND seq > $2 \
                 ORDER BY seq LIMIT {}",
                page.fetch()
            ))
            .bind(task_id)
            .bind(after)
            .fetch_all(self.reader())
            .await?;
            let items = rows.iter().map(report_from_row).collect::<Result<_>>()?;
            return Ok(Page::from_fetched(items, page));
        };
        // The objects of a service can be many; the reports of one task are
        // bounded by its quotas, so they are filtered here rather than in SQL.
        let items = self
            .reports_after(task_id, after)
            .await?
            .into_iter()
            .filter(|r| entities.contains(&r.entity_id.as_str()))
            .take(usize::try_from(page.fetch()).unwrap_or(usize::MAX))
            .collect();
        Ok(Page::from_fetched(items, page))
    }

    /// The status reports of one task, oldest first.
    pub async fn reports(&self, task_id: &str) -> Result<Vec<Report>> {
        let rows = sqlx::query(&format!(
            "SELECT {REPORT_COLUMNS} FROM status_reports WHERE task_id = $1 ORDER BY seq"
        ))
        .bind(task_id)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(report_from_row).collect()
    }

    /// The reports of one task after sequence number `after`, oldest first.
    pub async fn reports_after(&self, task_id: &str, after: i64) -> Result<Vec<Report>> {
        let rows = sqlx::query(&format!(
            "SELECT {REPORT_COLUMNS} FROM status_reports WHERE task_id = $1 AND seq > $2 ORDER BY seq"
        ))
        .bind(task_id)
        .bind(after)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(report_from_row).collect()
    }

    /// The newest report of an environment's tasks about any of the objects
    /// `entities` (for `lastStatus`), found through the reports' entity index.
    pub async fn newest_report(
        &self,
        environment_id: &str,
        entities: &[&str],
    ) -> Result<Option<Report>> {
        let cols = REPORT_COLUMNS
            .split(", ")
            .map(|c| format!("s.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut newest: Option<(String, Report)> = None;
        // Bounded lists of placeholders; the newest of the chunks' newest wins.
        for chunk in entities.chunks(500) {
            let marks = (0..chunk.len())
                .map(|i| format!("${}", i + 2))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "SELECT {cols}, t.created AS t_created FROM status_reports s \
                 JOIN tasks t ON t.id = s.task_id \
                 WHERE t.environment_id = $1 AND s.entity_id IN ({marks}) \
                 ORDER BY t.created DESC, s.seq DESC LIMIT 1"
            );
            let mut q = sqlx::query(&sql).bind(environment_id);
            for e in chunk {
                q = q.bind(*e);
            }
            if let Some(r) = q.fetch_optional(self.reader()).await? {
                let key = (row::text(&r, "t_created")?, report_from_row(&r)?);
                let newer = newest
                    .as_ref()
                    .is_none_or(|(c, n)| (&key.0, key.1.seq) > (c, n.seq));
                if newer {
                    newest = Some(key);
                }
            }
        }
        Ok(newest.map(|(_, r)| r))
    }

    /// Appends a report to a task on its own.
    pub async fn report(&self, task_id: &str, r: &NewReport) -> Result<i64> {
        let seq = self
            .retry(|| async {
                let mut tx = self.begin().await?;
                let seq = add_report(&mut tx, task_id, r).await?;
                tx.commit().await?;
                Ok(seq)
            })
            .await?;
        self.notify_written();
        Ok(seq)
    }

    /// Asks a queued or running task to stop; returns false when it had
    /// already finished.
    pub async fn request_cancel(&self, task_id: &str) -> Result<bool> {
        self.retry(|| async {
            let res = sqlx::query(
                "UPDATE tasks SET cancel_requested = 1, updated = $1 \
                 WHERE id = $2 AND state IN ('queued', 'running')",
            )
            .bind(time::now())
            .bind(task_id)
            .execute(self.pool())
            .await?;
            Ok(res.rows_affected() > 0)
        })
        .await
    }

    /// Records the package versions a task runs with (the first pin wins).
    pub async fn pin_packages(&self, task_id: &str, pins: &[PinnedPackage]) -> Result<()> {
        self.retry(|| self.pin_once(task_id, pins)).await
    }

    async fn pin_once(&self, task_id: &str, pins: &[PinnedPackage]) -> Result<()> {
        let mut tx = self.begin().await?;
        for p in pins {
            let exists = sqlx::query(
                "SELECT 1 AS one FROM task_packages WHERE task_id = $1 AND fully_qualified_name = $2",
            )
            .bind(task_id)
            .bind(&p.fully_qualified_name)
            .fetch_optional(&mut *tx)
            .await?;
            if exists.is_none() {
                sqlx::query(
                    "INSERT INTO task_packages (task_id, fully_qualified_name, package_id, version) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(task_id)
                .bind(&p.fully_qualified_name)
                .bind(&p.package_id)
                .bind(&p.version)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    pub async fn pinned_packages(&self, task_id: &str) -> Result<Vec<PinnedPackage>> {
        let rows = sqlx::query(
            "SELECT fully_qualified_name, package_id, version FROM task_packages \
             WHERE task_id = $1 ORDER BY fully_qualified_name",
        )
        .bind(task_id)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(PinnedPackage {
                    fully_qualified_name: row::text(r, "fully_qualified_name")?,
                    package_id: row::text(r, "package_id")?,
                    version: row::text(r, "version")?,
                })
            })
            .collect()
    }
}

/// A package version a task is pinned to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinnedPackage {
    pub fully_qualified_name: String,
    pub package_id: String,
    pub version: String,
}
