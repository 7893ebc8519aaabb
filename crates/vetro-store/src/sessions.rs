//! Configuration sessions: a user's draft copy of an environment's model,
//! deployed as a whole.

use crate::queue::{self, NewTask, TaskKind};
use crate::{new_id, row, time, Result, Store, StoreError, Tx};
use serde_json::Value;
use sqlx::any::AnyRow;

pub const OPENED: &str = "opened";
pub const DEPLOYING: &str = "deploying";
pub const DEPLOYED: &str = "deployed";
pub const DEPLOY_FAILURE: &str = "deploy failure";
pub const DELETING: &str = "deleting";
pub const DELETE_FAILURE: &str = "delete failure";

#[derive(Clone, Debug)]
pub struct Session {
    pub id: String,
    pub environment_id: String,
    pub user_id: String,
    pub state: String,
    pub version: i64,
    /// The draft environment document.
    pub model: Value,
    pub created: String,
    pub updated: String,
}

const COLUMNS: &str = "id, environment_id, user_id, state, version, model, created, updated";

fn from_row(r: &AnyRow) -> Result<Session> {
    Ok(Session {
        id: row::text(r, "id")?,
        environment_id: row::text(r, "environment_id")?,
        user_id: row::text(r, "user_id")?,
        state: row::text(r, "state")?,
        version: row::int(r, "version")?,
        model: row::json(r, "model")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
    })
}

/// The environment's version and how many other sessions of it are being
/// deployed or deleted: what [`invalid_reason`] decides on, in one query.
const VALIDITY: &str = "SELECT e.version, (SELECT COUNT(*) FROM sessions o \
     WHERE o.environment_id = e.id AND o.id <> $2 AND o.state IN ('deploying', 'deleting')) AS busy \
     FROM environments e WHERE e.id = $1";

fn reason_from(r: Option<AnyRow>, s: &Session) -> Result<Option<String>> {
    let r = r.ok_or_else(|| StoreError::NotFound(format!("environment {}", s.environment_id)))?;
    if row::int(&r, "version")? > s.version {
        return Ok(Some(format!(
            "session {} is invalid: the environment was deployed after it was opened",
            s.id
        )));
    }
    if s.state == OPENED && row::int(&r, "busy")? > 0 {
        return Ok(Some(format!(
            "session {} is invalid: another session is being deployed",
            s.id
        )));
    }
    Ok(None)
}

/// Why a session cannot be used, if it cannot.
pub async fn invalid_reason(tx: &mut Tx<'_>, s: &Session) -> Result<Option<String>> {
    let r = sqlx::query(VALIDITY)
        .bind(&s.environment_id)
        .bind(&s.id)
        .fetch_optional(&mut **tx)
        .await?;
    reason_from(r, s)
}

impl Store {
    /// Opens a session on a copy of the environment's model.
    pub async fn open_session(&self, environment_id: &str, user_id: &str) -> Result<Session> {
        let mut tx = self.begin().await?;
        let s = open_session_in(&mut tx, environment_id, user_id, None).await?;
        tx.commit().await?;
        Ok(s)
    }

    pub async fn get_session(&self, id: &str) -> Result<Session> {
        let r = sqlx::query(&format!("SELECT {COLUMNS} FROM sessions WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.reader())
            .await?;
        match r {
            Some(r) => from_row(&r),
            None => Err(StoreError::NotFound(format!("session {id}"))),
        }
    }

    /// `Some(reason)` when the session may no longer be deployed or edited.
    /// A check before an edit; [`Store::deploy_session`] checks again in
    /// its transaction.
    pub async fn session_invalid_reason(&self, s: &Session) -> Result<Option<String>> {
        let r = sqlx::query(VALIDITY)
            .bind(&s.environment_id)
            .bind(&s.id)
            .fetch_optional(self.reader())
            .await?;
        reason_from(r, s)
    }

    pub async fn delete_session(&self, id: &str) -> Result<()> {
        let res = sqlx::query(
            "DELETE FROM sessions WHERE id = $1 AND state <> 'deploying' AND state <> 'deleting'",
        )
        .bind(id)
        .execute(self.pool())
        .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::Forbidden(format!(
                "session {id} is being deployed and cannot be deleted"
            )));
        }
        Ok(())
    }

    /// Replaces the draft of an `opened` session.
    pub async fn update_session_model(&self, id: &str, model: &Value) -> Result<()> {
        let res = sqlx::query(
            "UPDATE sessions SET model = $1, updated = $2 WHERE id = $3 AND state = 'opened'",
        )
        .bind(model.to_string())
        .bind(time::now())
        .bind(id)
        .execute(self.pool())
        .await?;
        if res.rows_affected() == 0 {
            return Err(StoreError::Forbidden(format!(
                "session {id} is not open for editing"
            )));
        }
        Ok(())
    }

    /// Submits an `opened`, valid session: the session goes `deploying` (or
    /// `deleting` when its model has no objects) and a task is queued, in one
    /// transaction. Returns the task id. A second active task on the same
    /// environment is refused by the database's unique index. `trust_id`:
    /// the Keystone trust the task acts through, if any.
    pub async fn deploy_session(
        &self,
        session_id: &str,
        project_id: &str,
        trust_id: Option<&str>,
    ) -> Result<String> {
        let mut tx = self.begin().await?;
        let r = sqlx::query(&format!("SELECT {COLUMNS} FROM sessions WHERE id = $1"))
            .bind(session_id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("session {session_id}")))?;
        let s = from_row(&r)?;
        if s.state != OPENED {
            return Err(StoreError::Forbidden(format!(
                "session {} is in state '{}', only an opened session can be deployed",
                s.id, s.state
            )));
        }
        if let Some(reason) = invalid_reason(&mut tx, &s).await? {
            return Err(StoreError::Forbidden(reason));
        }
        let deleting = s.model.get("Objects").is_none_or(Value::is_null);
        let (kind, state) = if deleting {
            (TaskKind::Delete, DELETING)
        } else {
            (TaskKind::Deploy, DEPLOYING)
        };
        set_state(&mut tx, &s.id, state).await?;
        let payload = match kind {
            TaskKind::Delete => Value::Null,
            _ => serde_json::json!({"object_id": s.environment_id, "method": "deploy", "args": {}}),
        };
        let task_id = queue::enqueue_task(
            &mut tx,
            &NewTask {
                project_id: project_id.to_string(),
                environment_id: Some(s.environment_id.clone()),
                session_id: Some(s.id.clone()),
                user_id: s.user_id.clone(),
                kind,
                payload,
                description: s.model.get("Objects").cloned(),
                trust_id: trust_id.map(str::to_string),
            },
        )
        .await?;
        tx.commit().await?;
        self.notify_queued();
        Ok(task_id)
    }
}

/// Sets a session's state inside `tx`.
pub async fn set_state(tx: &mut Tx<'_>, session_id: &str, state: &str) -> Result<()> {
    sqlx::query("UPDATE sessions SET state = $1, updated = $2 WHERE id = $3")
        .bind(state)
        .bind(time::now())
        .bind(session_id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Opens a session inside `tx`, on `model` or else on the environment's model.
pub async fn open_session_in(
    tx: &mut Tx<'_>,
    environment_id: &str,
    user_id: &str,
    model: Option<&Value>,
) -> Result<Session> {
    let r = sqlx::query("SELECT version, model FROM environments WHERE id = $1")
        .bind(environment_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("environment {environment_id}")))?;
    let version = row::int(&r, "version")?;
    let model = match model {
        Some(m) => m.clone(),
        None => row::json(&r, "model")?,
    };
    let id = new_id();
    let now = time::now();
    sqlx::query(
        "INSERT INTO sessions (id, environment_id, user_id, state, version, model, created, updated) \
         VALUES ($1, $2, $3, 'opened', $4, $5, $6, $6)",
    )
    .bind(&id)
    .bind(environment_id)
    .bind(user_id)
    .bind(version)
    .bind(model.to_string())
    .bind(&now)
    .execute(&mut **tx)
    .await?;
    Ok(Session {
        id,
        environment_id: environment_id.into(),
        user_id: user_id.into(),
        state: OPENED.into(),
        version,
        model,
        created: now.clone(),
        updated: now,
    })
}

impl Store {
    /// Opens a session on the environment's model and submits it at once, in
    /// one transaction: an environment deletion (`TaskKind::Delete`, the
    /// session's model has no objects) or an action run (`TaskKind::Action`,
    /// `payload` is `{"object_id", "method", "args"}`), acting through the
    /// Keystone trust `trust_id` if any. Returns `(session id, task id)`.
    pub async fn submit_in_new_session(
        &self,
        environment_id: &str,
        user_id: &str,
        project_id: &str,
        kind: TaskKind,
        payload: Value,
        trust_id: Option<&str>,
    ) -> Result<(String, String)> {
        let mut tx = self.begin().await?;
        let mut s = open_session_in(&mut tx, environment_id, user_id, None).await?;
        let description = s.model.get("Objects").cloned();
        let state = if kind == TaskKind::Delete {
            if let Some(o) = s.model.as_object_mut() {
                // The engine destroys what the last deployment left
                // (ObjectsCopy); when none succeeded, the environment as
                // created, whose destruction releases its stack all the same.
                let objects = o.insert("Objects".into(), Value::Null);
                if o.get("ObjectsCopy").is_none_or(Value::is_null) {
                    o.insert("ObjectsCopy".into(), objects.unwrap_or(Value::Null));
                }
            }
            sqlx::query("UPDATE sessions SET model = $1 WHERE id = $2")
                .bind(s.model.to_string())
                .bind(&s.id)
                .execute(&mut *tx)
                .await?;
            DELETING
        } else {
            DEPLOYING
        };
        set_state(&mut tx, &s.id, state).await?;
        let task_id = queue::enqueue_task(
            &mut tx,
            &NewTask {
                project_id: project_id.to_string(),
                environment_id: Some(environment_id.to_string()),
                session_id: Some(s.id.clone()),
                user_id: user_id.to_string(),
                kind,
                payload,
                description,
                trust_id: trust_id.map(str::to_string),
            },
        )
        .await?;
        tx.commit().await?;
        self.notify_queued();
        Ok((s.id, task_id))
    }
}
