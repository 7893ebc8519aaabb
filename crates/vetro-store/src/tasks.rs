//! The worker side of tasks: claiming a queued task under a lease, renewing
//! the lease while the engine runs, committing the result in one transaction,
//! and reaping tasks whose worker died.
//!
//! A lease is a row-level promise: `lease_owner` runs the task until
//! `lease_expires_at`. Every write a worker makes is guarded by
//! `lease_owner = <itself> AND state = 'running'`, so a worker that lost its
//! lease (it stalled, the reaper gave the task to another) cannot overwrite
//! the result of the one that took over.

use crate::queue::{add_report, task_from_row, NewReport, Task, TaskKind, TASK_COLUMNS};
use crate::sessions::{self, DELETE_FAILURE, DEPLOYED, DEPLOY_FAILURE};
use crate::{environments, time, Backend, Result, Store, Tx};
use jiff::SignedDuration;
use serde_json::Value;
use std::time::Duration;

/// How a task ended, as the worker commits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    Succeeded,
    Failed,
    Cancelled,
}

impl Finish {
    fn state(self) -> &'static str {
        match self {
            Finish::Succeeded => crate::queue::SUCCEEDED,
            Finish::Failed => crate::queue::FAILED,
            Finish::Cancelled => crate::queue::CANCELLED,
        }
    }
}

/// Everything a finished task writes, committed at once by [`Store::complete_task`].
#[derive(Clone, Debug)]
pub struct Completion {
    pub finish: Finish,
    /// `{"result": ..., "isException": bool}` (what the actions API answers).
    pub result: Value,
    pub is_exception: bool,
    /// The model after the run. A success makes it the environment's model;
    /// otherwise it is kept on the task as the attempted model and the
    /// environment keeps its last good one.
    pub model: Option<Value>,
    /// The simulated cloud after the run: what exists, success or not.
    pub cloud_state: Option<Value>,
}

/// What a lease renewal found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeaseState {
    /// Still ours; `cancel` when a cancel was requested meanwhile.
    Held { cancel: bool },
    /// Expired and taken by the reaper (or the task is gone): stop and write nothing.
    Lost,
}

/// What the reaper did with one task whose lease expired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reaped {
    /// Put back in the queue for another worker (attempts left).
    Requeued(String),
    /// Failed with an error report (no attempts left).
    Failed(String),
}

/// Which tasks a worker takes: deployments, deletions and actions, or
/// static actions (which answer an API call waiting for them, so they get
/// workers of their own and never queue behind deployments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lane {
    /// Every kind of task.
    #[default]
    Any,
    Deployments,
    StaticActions,
}

impl Lane {
    /// The lane's condition on a `tasks` row (always true for `Any`).
    fn condition(self) -> &'static str {
        match self {
            Lane::Any => "kind = kind",
            Lane::Deployments => "kind <> 'static_action'",
            Lane::StaticActions => "kind = 'static_action'",
        }
    }
}

/// What a claim may take (see [`Store::claim_next`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClaimRules {
    pub lane: Lane,
    /// Tasks of the lane one project may have running at once; `None`: no bound.
    pub max_running_per_project: Option<i64>,
}

/// The PostgreSQL advisory lock key that serializes claims ("vetro" + 1).
const CLAIM_LOCK: i64 = 0x7665_7472_6f01;

fn lease_end(lease: Duration) -> String {
    time::after(SignedDuration::try_from(lease).unwrap_or(SignedDuration::MAX))
}

impl Store {
    /// Claims the oldest queued task for `owner` with a lease of `lease`, or
    /// `None` when the queue is empty: [`Store::claim_next`] with
    /// [`ClaimRules::default`] (every kind, no bound per project).
    pub async fn claim_task(&self, owner: &str, lease: Duration) -> Result<Option<Task>> {
        self.claim_next(owner, lease, &ClaimRules::default()).await
    }

    /// Claims the next queued task of `rules.lane` for `owner` with a lease
    /// of `lease`, or `None` when there is none it may take. Projects take
    /// turns: the task chosen belongs to a project with the fewest tasks of
    /// the lane running, oldest first among those, and a project already
    /// running `rules.max_running_per_project` tasks of the lane waits. The
    /// choice and the update are one step for every claimer of the database
    /// (one statement under SQLite's write lock; a transaction-scoped
    /// advisory lock on PostgreSQL), so the bound holds across processes and
    /// each task goes to exactly one claimer.
    pub async fn claim_next(
        &self,
        owner: &str,
        lease: Duration,
        rules: &ClaimRules,
    ) -> Result<Option<Task>> {
        self.retry(|| self.claim_once(owner, lease, rules)).await
    }

    async fn claim_once(
        &self,
        owner: &str,
        lease: Duration,
        rules: &ClaimRules,
    ) -> Result<Option<Task>> {
        let lane = rules.lane.condition();
        let running = format!(
            "(SELECT COUNT(*) FROM tasks r WHERE r.project_id = q.project_id \
             AND r.state = 'running' AND r.{lane})"
        );
        let now = time::now();
        let sql = format!(
            "UPDATE tasks SET state = 'running', lease_owner = $1, lease_expires_at = $2, \
             attempts = attempts + 1, started = COALESCE(started, $3), updated = $3 \
             WHERE state = 'queued' AND id = (SELECT q.id FROM tasks q \
             WHERE q.state = 'queued' AND q.{lane} AND {running} < $4 \
             ORDER BY {running}, q.created, q.id LIMIT 1) RETURNING {TASK_COLUMNS}"
        );
        let max = rules.max_running_per_project.unwrap_or(i64::MAX);
        let mut tx = self.begin().await?;
        if self.backend() == Backend::Postgres {
            // Claimers wait for each other here (a claim is a few
            // milliseconds), so two cannot both see room in one project.
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(CLAIM_LOCK)
                .execute(&mut *tx)
                .await?;
        }
        let r = sqlx::query(&sql)
            .bind(owner)
            .bind(lease_end(lease))
            .bind(&now)
            .bind(max)
            .fetch_optional(&mut *tx)
            .await?;
        let task = r.as_ref().map(task_from_row).transpose()?;
        tx.commit().await?;
        Ok(task)
    }

    /// Extends `owner`'s lease on a running task and reports whether a
    /// cancel was requested.
    pub async fn renew_lease(
        &self,
        task_id: &str,
        owner: &str,
        lease: Duration,
    ) -> Result<LeaseState> {
        self.retry(|| self.renew_once(task_id, owner, lease)).await
    }

    async fn renew_once(&self, task_id: &str, owner: &str, lease: Duration) -> Result<LeaseState> {
        let mut tx = self.begin().await?;
        let res = sqlx::query(
            "UPDATE tasks SET lease_expires_at = $1 \
             WHERE id = $2 AND lease_owner = $3 AND state = 'running'",
        )
        .bind(lease_end(lease))
        .bind(task_id)
        .bind(owner)
        .execute(&mut *tx)
        .await?;
        if res.rows_affected() != 1 {
            return Ok(LeaseState::Lost);
        }
        let r = sqlx::query("SELECT cancel_requested FROM tasks WHERE id = $1")
            .bind(task_id)
            .fetch_one(&mut *tx)
            .await?;
        let cancel = crate::row::flag(&r, "cancel_requested")?;
        tx.commit().await?;
        Ok(LeaseState::Held { cancel })
    }

    /// Appends a status report to a task `owner` still holds; `false` (and
    /// nothing written) when the lease was lost.
    pub async fn report_as(&self, task_id: &str, owner: &str, r: &NewReport) -> Result<bool> {
        self.retry(|| self.report_once(task_id, owner, r)).await
    }

    async fn report_once(&self, task_id: &str, owner: &str, r: &NewReport) -> Result<bool> {
        let mut tx = self.begin().await?;
        if !holds(&mut tx, task_id, owner).await? {
            return Ok(false);
        }
        add_report(&mut tx, task_id, r).await?;
        tx.commit().await?;
        self.notify_written();
        Ok(true)
    }

    /// Gives a task back to the queue without a result (a worker shutting
    /// down stops its engine and hands the task to the next claimer).
    pub async fn release_task(&self, task_id: &str, owner: &str) -> Result<bool> {
        self.retry(|| self.release_once(task_id, owner)).await
    }

    async fn release_once(&self, task_id: &str, owner: &str) -> Result<bool> {
        let mut tx = self.begin().await?;
        if !holds(&mut tx, task_id, owner).await? {
            return Ok(false);
        }
        requeue(
            &mut tx,
            task_id,
            "the engine worker stopped; the task was put back in the queue",
        )
        .await?;
        tx.commit().await?;
        self.notify_queued();
        Ok(true)
    }

    /// Commits a finished task: its state and result, the environment's
    /// model, version and cloud state, and the session's state, in one
    /// transaction. A successful deletion removes the environment. Returns
    /// `false` (and writes nothing) when `owner` no longer holds the task.
    pub async fn complete_task(&self, task: &Task, owner: &str, c: &Completion) -> Result<bool> {
        self.retry(|| self.complete_once(task, owner, c)).await
    }

    async fn complete_once(&self, task: &Task, owner: &str, c: &Completion) -> Result<bool> {
        let mut tx = self.begin().await?;
        if !holds(&mut tx, &task.id, owner).await? {
            return Ok(false);
        }
        let ok = c.finish == Finish::Succeeded;
        let attempted = if ok { None } else { c.model.as_ref() };
        finish_row(
            &mut tx,
            &task.id,
            c.finish,
            &c.result,
            c.is_exception,
            attempted,
        )
        .await?;
        if let Some(env) = &task.environment_id {
            if task.kind == TaskKind::Delete && ok {
                environments::delete_environment_in(&mut tx, env).await?;
                tx.commit().await?;
                self.notify_written();
                return Ok(true);
            }
            let model = if ok { c.model.as_ref() } else { None };
            update_environment(&mut tx, env, model, c.cloud_state.as_ref()).await?;
        }
        if let Some(session) = &task.session_id {
            sessions::set_state(&mut tx, session, session_state(task.kind, ok)).await?;
        }
        tx.commit().await?;
        self.notify_written();
        Ok(true)
    }

    /// Finds running tasks whose lease expired before now: each is requeued
    /// while it has had fewer than `max_attempts` runs, and failed otherwise,
    /// both with a report saying why.
    pub async fn reap_expired(&self, max_attempts: i64) -> Result<Vec<Reaped>> {
        let now = time::now();
        let rows = self
            .retry(|| async {
                Ok(sqlx::query(&format!(
                    "SELECT {TASK_COLUMNS} FROM tasks WHERE state = 'running' \
                     AND lease_expires_at < $1"
                ))
                .bind(&now)
                .fetch_all(self.reader())
                .await?)
            })
            .await?;
        let mut out = Vec::new();
        for r in &rows {
            let task = task_from_row(r)?;
            if let Some(reaped) = self
                .retry(|| self.reap_one(&task, &now, max_attempts))
                .await?
            {
                out.push(reaped);
            }
        }
        if out.iter().any(|r| matches!(r, Reaped::Requeued(_))) {
            self.notify_queued();
        }
        Ok(out)
    }

    /// Requeues or fails one task whose lease had expired at `now`; `None`
    /// when its row changed since it was read.
    async fn reap_one(&self, task: &Task, now: &str, max_attempts: i64) -> Result<Option<Reaped>> {
        let mut tx = self.begin().await?;
        // Another reaper or a late renewal may have changed the row since
        // the select: the guarded touch re-checks the expiry and the owner.
        let still = sqlx::query(
            "UPDATE tasks SET updated = $1 WHERE id = $2 AND state = 'running' \
                 AND lease_expires_at < $1 AND lease_owner = $3",
        )
        .bind(now)
        .bind(&task.id)
        .bind(task.lease_owner.clone().unwrap_or_default())
        .execute(&mut *tx)
        .await?;
        if still.rows_affected() != 1 {
            return Ok(None);
        }
        let reaped = if task.attempts < max_attempts {
            let text = format!(
                "the engine worker running this task stopped answering (lease expired after \
                     attempt {} of {max_attempts}); another worker takes it over",
                task.attempts
            );
            requeue(&mut tx, &task.id, &text).await?;
            Reaped::Requeued(task.id.clone())
        } else {
            fail_expired(&mut tx, task, max_attempts).await?;
            Reaped::Failed(task.id.clone())
        };
        tx.commit().await?;
        Ok(Some(reaped))
    }
}

/// Whether `owner` holds the running task. The check is a write (it touches
/// `updated`), so the transaction holds the row (PostgreSQL) or the database
/// (SQLite) from here on and no other writer can slip in before the commit.
async fn holds(tx: &mut Tx<'_>, task_id: &str, owner: &str) -> Result<bool> {
    let res = sqlx::query(
        "UPDATE tasks SET updated = $1 WHERE id = $2 AND lease_owner = $3 AND state = 'running'",
    )
    .bind(time::now())
    .bind(task_id)
    .bind(owner)
    .execute(&mut **tx)
    .await?;
    Ok(res.rows_affected() == 1)
}

async fn requeue(tx: &mut Tx<'_>, task_id: &str, text: &str) -> Result<()> {
    sqlx::query(
        "UPDATE tasks SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL, \
         updated = $1 WHERE id = $2",
    )
    .bind(time::now())
    .bind(task_id)
    .execute(&mut **tx)
    .await?;
    let entity_id = task_env(tx, task_id).await?;
    add_report(
        tx,
        task_id,
        &NewReport {
            entity_id,
            entity: "environment".into(),
            text: text.into(),
            level: "warning".into(),
            details: None,
        },
    )
    .await?;
    Ok(())
}

async fn task_env(tx: &mut Tx<'_>, task_id: &str) -> Result<String> {
    let r = sqlx::query("SELECT environment_id FROM tasks WHERE id = $1")
        .bind(task_id)
        .fetch_one(&mut **tx)
        .await?;
    Ok(crate::row::opt_text(&r, "environment_id")?.unwrap_or_default())
}

async fn fail_expired(tx: &mut Tx<'_>, task: &Task, max_attempts: i64) -> Result<()> {
    let text = format!(
        "the engine worker running this task stopped answering (lease expired) and the task \
         had no attempts left ({} of {max_attempts}); nothing it did was committed",
        task.attempts
    );
    let result = serde_json::json!({"message": text});
    finish_row(tx, &task.id, Finish::Failed, &result, true, None).await?;
    add_report(
        tx,
        &task.id,
        &NewReport {
            entity_id: task.environment_id.clone().unwrap_or_default(),
            entity: "environment".into(),
            text,
            level: "error".into(),
            details: None,
        },
    )
    .await?;
    if let Some(session) = &task.session_id {
        sessions::set_state(tx, session, session_state(task.kind, false)).await?;
    }
    Ok(())
}

async fn finish_row(
    tx: &mut Tx<'_>,
    task_id: &str,
    finish: Finish,
    result: &Value,
    is_exception: bool,
    attempted_model: Option<&Value>,
) -> Result<()> {
    let now = time::now();
    sqlx::query(
        "UPDATE tasks SET state = $1, result = $2, is_exception = $3, attempted_model = $4, \
         lease_owner = NULL, lease_expires_at = NULL, finished = $5, updated = $5 WHERE id = $6",
    )
    .bind(finish.state())
    .bind(result.to_string())
    .bind(i64::from(is_exception))
    .bind(attempted_model.map(Value::to_string))
    .bind(&now)
    .bind(task_id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A finished run's new model (only on success) bumps the version, which
/// invalidates sessions opened before it, as in Murano.
async fn update_environment(
    tx: &mut Tx<'_>,
    env: &str,
    model: Option<&Value>,
    cloud_state: Option<&Value>,
) -> Result<()> {
    let now = time::now();
    if let Some(model) = model {
        sqlx::query(
            "UPDATE environments SET model = $1, version = version + 1, updated = $2 WHERE id = $3",
        )
        .bind(model.to_string())
        .bind(&now)
        .bind(env)
        .execute(&mut **tx)
        .await?;
    }
    if let Some(state) = cloud_state {
        sqlx::query("UPDATE environments SET cloud_state = $1 WHERE id = $2")
            .bind(state.to_string())
            .bind(env)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

fn session_state(kind: TaskKind, ok: bool) -> &'static str {
    match (kind, ok) {
        (TaskKind::Delete, false) => DELETE_FAILURE,
        (_, true) => DEPLOYED,
        (_, false) => DEPLOY_FAILURE,
    }
}
