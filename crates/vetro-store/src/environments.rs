//! Environments: a project's named object model, its version and the
//! simulated cloud's state.

use crate::page::{Page, PageRequest};
use crate::{new_id, row, time, Result, Store, StoreError, Tx};
use serde_json::Value;
use sqlx::any::AnyRow;

#[derive(Clone, Debug)]
pub struct Environment {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub description_text: String,
    /// Bumped by every finished deployment; sessions opened at an older
    /// version are invalid.
    pub version: i64,
    /// The whole environment document: `{"Objects": ..., "Attributes": [...], ...}`.
    pub model: Value,
    pub created: String,
    pub updated: String,
}

/// Murano's computed environment status.
pub const READY: &str = "ready";
pub const PENDING: &str = "pending";

const COLUMNS: &str = "id, project_id, name, description_text, version, model, created, updated";

fn from_row(r: &AnyRow) -> Result<Environment> {
    Ok(Environment {
        id: row::text(r, "id")?,
        project_id: row::text(r, "project_id")?,
        name: row::text(r, "name")?,
        description_text: row::text(r, "description_text")?,
        version: row::int(r, "version")?,
        model: row::json(r, "model")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
    })
}

/// An environment without its model, with its computed status: what the
/// environment list shows.
#[derive(Clone, Debug)]
pub struct EnvironmentSummary {
    pub id: String,
    pub project_id: String,
    pub name: String,
    pub description_text: String,
    pub version: i64,
    pub created: String,
    pub updated: String,
    /// [`status_of`] its sessions, as stored with it.
    pub status: String,
}

/// A session's state and order, the input of [`status_of`].
#[derive(Clone, Debug)]
pub struct SessionMark {
    pub id: String,
    pub state: String,
    pub version: i64,
    pub updated: String,
}

/// Murano's status walk: sessions newest first; the first deploying,
/// deleting or failed one decides; a deployed one ends the walk; an opened
/// one seen on the way makes the environment `pending`.
pub fn status_of(sessions: &[SessionMark]) -> String {
    let mut ordered: Vec<&SessionMark> = sessions.iter().collect();
    ordered.sort_by(|a, b| (b.version, &b.updated).cmp(&(a.version, &a.updated)));
    let mut pending = false;
    for s in ordered {
        match s.state.as_str() {
            "deploying" | "deleting" | "deploy failure" | "delete failure" => {
                return s.state.clone()
            }
            "deployed" => break,
            "opened" => pending = true,
            _ => {}
        }
    }
    if pending { PENDING } else { READY }.to_string()
}

/// The session currently deploying or deleting, if any.
pub fn acquired_by(sessions: &[SessionMark]) -> Option<String> {
    sessions
        .iter()
        .find(|s| s.state == "deploying" || s.state == "deleting")
        .map(|s| s.id.clone())
}

/// The model of a new environment, as Murano writes it.
pub fn initial_model(
    id: &str,
    name: &str,
    project_id: &str,
    user_id: &str,
    extra: &Value,
) -> Value {
    let mut objects = serde_json::json!({
        "?": {"id": id, "type": "io.murano.Environment", "metadata": {}},
        "name": name,
        // Murano's default: a Neutron network of the environment's own.
        "defaultNetworks": {
            "environment": {
                "?": {"id": crate::new_id(), "type": "io.murano.resources.NeutronNetwork"},
                "name": format!("{name}-network"),
            },
            "flat": null,
        },
        "services": [],
    });
    if let (Some(o), Some(extra)) = (objects.as_object_mut(), extra.as_object()) {
        for key in ["region", "regionConfigs", "defaultNetworks"] {
            if let Some(v) = extra.get(key) {
                o.insert(key.to_string(), v.clone());
            }
        }
    }
    serde_json::json!({
        "Objects": objects,
        "Attributes": [],
        "project_id": project_id,
        "user_id": user_id,
    })
}

impl Store {
    /// Creates an environment; a duplicate name in the project is a conflict.
    pub async fn create_environment(
        &self,
        project_id: &str,
        name: &str,
        model: &Value,
        id: Option<String>,
    ) -> Result<Environment> {
        let mut tx = self.begin().await?;
        let env = insert_environment(&mut tx, project_id, name, model, id).await?;
        tx.commit().await?;
        Ok(env)
    }

    /// Environments of `project_id`, or of every project when `None`.
    pub async fn list_environments(&self, project_id: Option<&str>) -> Result<Vec<Environment>> {
        let rows = match project_id {
            Some(p) => {
                sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM environments WHERE project_id = $1 ORDER BY created, id"
                ))
                .bind(p)
                .fetch_all(self.pool())
                .await?
            }
            None => {
                sqlx::query(&format!(
                    "SELECT {COLUMNS} FROM environments ORDER BY created, id"
                ))
                .fetch_all(self.pool())
                .await?
            }
        };
        rows.iter().map(from_row).collect()
    }

    /// One page of the environments of `project_id` (of every project when
    /// `None`) with their status, oldest first, in one query through the
    /// page index. The status is kept in the environment's row (triggers on
    /// `sessions` apply [`status_of`]'s rule as sessions change), so a page
    /// reads no sessions and costs the same however many there are.
    pub async fn list_environment_summaries(
        &self,
        project_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<Page<EnvironmentSummary>> {
        let (filter, binds) = self.environment_filter(project_id, page).await?;
        let sql = format!(
            "SELECT t.id, t.project_id, t.name, t.description_text, t.version, t.created, \
             t.updated, t.status FROM environments t WHERE {filter} ORDER BY t.created, t.id \
             LIMIT {}",
            page.fetch()
        );
        let mut q = sqlx::query(&sql);
        for b in &binds {
            q = q.bind(b);
        }
        let rows = q.fetch_all(self.reader()).await?;
        let items = rows.iter().map(summary_from_row).collect::<Result<_>>()?;
        Ok(Page::from_fetched(items, page))
    }

    /// The condition on `environments t` of a page and its bound values.
    async fn environment_filter(
        &self,
        project_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<(String, Vec<String>)> {
        let mut filter = String::from("1 = 1");
        let mut binds: Vec<String> = Vec::new();
        if let Some(p) = project_id {
            binds.push(p.to_string());
            filter.push_str(&format!(" AND t.project_id = ${}", binds.len()));
        }
        if let Some(m) = &page.marker {
            let created = self.environment_marker(m, project_id).await?;
            binds.push(created);
            binds.push(m.clone());
            let (c, i) = (binds.len() - 1, binds.len());
            filter.push_str(&format!(
                " AND (t.created > ${c} OR (t.created = ${c} AND t.id > ${i}))"
            ));
        }
        Ok((filter, binds))
    }

    /// The creation time of the environment `id` that a page starts after,
    /// when it belongs to the listing.
    async fn environment_marker(&self, id: &str, project_id: Option<&str>) -> Result<String> {
        let r = sqlx::query("SELECT project_id, created FROM environments WHERE id = $1")
            .bind(id)
            .fetch_optional(self.reader())
            .await?;
        match r {
            Some(r)
                if project_id.is_none_or(|p| row::text(&r, "project_id").is_ok_and(|x| x == p)) =>
            {
                row::text(&r, "created")
            }
            _ => Err(StoreError::Invalid(format!(
                "marker '{id}' is not an environment of this listing"
            ))),
        }
    }

    pub async fn get_environment(&self, id: &str) -> Result<Environment> {
        let r = sqlx::query(&format!("SELECT {COLUMNS} FROM environments WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.reader())
            .await?;
        match r {
            Some(r) => from_row(&r),
            None => Err(StoreError::NotFound(format!("environment {id}"))),
        }
    }

    /// The project of an environment: enough to check access without
    /// loading its model.
    pub async fn environment_project(&self, id: &str) -> Result<String> {
        let r = sqlx::query("SELECT project_id FROM environments WHERE id = $1")
            .bind(id)
            .fetch_optional(self.reader())
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("environment {id}")))?;
        row::text(&r, "project_id")
    }

    /// Renames an environment (the model's `name` follows).
    pub async fn rename_environment(&self, id: &str, name: &str) -> Result<Environment> {
        let mut tx = self.begin().await?;
        let r = sqlx::query("SELECT model FROM environments WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("environment {id}")))?;
        let mut model = row::json(&r, "model")?;
        if let Some(o) = model.get_mut("Objects").and_then(Value::as_object_mut) {
            o.insert("name".into(), Value::String(name.into()));
        }
        let res = sqlx::query(
            "UPDATE environments SET name = $1, model = $2, updated = $3 WHERE id = $4",
        )
        .bind(name)
        .bind(model.to_string())
        .bind(time::now())
        .bind(id)
        .execute(&mut *tx)
        .await;
        map_unique(res.map_err(StoreError::from), name)?;
        tx.commit().await?;
        self.get_environment(id).await
    }

    /// Removes an environment with its sessions, tasks and reports.
    pub async fn delete_environment(&self, id: &str) -> Result<()> {
        let mut tx = self.begin().await?;
        delete_environment_in(&mut tx, id).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Session states of one environment, for [`status_of`].
    pub async fn session_marks(&self, environment_id: &str) -> Result<Vec<SessionMark>> {
        let rows = sqlx::query(
            "SELECT id, state, version, updated FROM sessions WHERE environment_id = $1",
        )
        .bind(environment_id)
        .fetch_all(self.reader())
        .await?;
        rows.iter().map(mark_from_row).collect()
    }

    /// The stored simulated-cloud state of an environment.
    pub async fn cloud_state(&self, environment_id: &str) -> Result<Option<Value>> {
        let r = sqlx::query("SELECT cloud_state FROM environments WHERE id = $1")
            .bind(environment_id)
            .fetch_optional(self.pool())
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("environment {environment_id}")))?;
        row::opt_json(&r, "cloud_state")
    }
}

/// An environment of [`Store::list_environment_summaries`].
fn summary_from_row(r: &AnyRow) -> Result<EnvironmentSummary> {
    Ok(EnvironmentSummary {
        id: row::text(r, "id")?,
        project_id: row::text(r, "project_id")?,
        name: row::text(r, "name")?,
        description_text: row::text(r, "description_text")?,
        version: row::int(r, "version")?,
        created: row::text(r, "created")?,
        updated: row::text(r, "updated")?,
        status: row::text(r, "status")?,
    })
}

fn mark_from_row(r: &AnyRow) -> Result<SessionMark> {
    Ok(SessionMark {
        id: row::text(r, "id")?,
        state: row::text(r, "state")?,
        version: row::int(r, "version")?,
        updated: row::text(r, "updated")?,
    })
}

fn map_unique<T>(res: Result<T>, name: &str) -> Result<T> {
    match res {
        Err(e) if e.is_unique_violation() => Err(StoreError::Conflict(format!(
            "an environment named '{name}' already exists in this project"
        ))),
        other => other,
    }
}

/// Inserts an environment inside `tx`.
pub async fn insert_environment(
    tx: &mut Tx<'_>,
    project_id: &str,
    name: &str,
    model: &Value,
    id: Option<String>,
) -> Result<Environment> {
    let id = id.unwrap_or_else(new_id);
    let now = time::now();
    let mut model = model.clone();
    if let Some(meta) = model
        .pointer_mut("/Objects/?")
        .and_then(Value::as_object_mut)
    {
        meta.insert("id".into(), Value::String(id.clone()));
    }
    let res = sqlx::query(
        "INSERT INTO environments (id, project_id, name, description_text, version, model, \
         created, updated) VALUES ($1, $2, $3, '', 0, $4, $5, $5)",
    )
    .bind(&id)
    .bind(project_id)
    .bind(name)
    .bind(model.to_string())
    .bind(&now)
    .execute(&mut **tx)
    .await;
    map_unique(res.map_err(StoreError::from), name)?;
    Ok(Environment {
        id,
        project_id: project_id.into(),
        name: name.into(),
        description_text: String::new(),
        version: 0,
        model,
        created: now.clone(),
        updated: now,
    })
}

/// Deletes an environment row inside `tx`; dependent rows go with it.
pub async fn delete_environment_in(tx: &mut Tx<'_>, id: &str) -> Result<()> {
    // Explicit deletes rather than relying on cascades alone, so the order is
    // the same on both backends.
    sqlx::query(
        "DELETE FROM status_reports WHERE task_id IN (SELECT id FROM tasks WHERE environment_id = $1)",
    )
    .bind(id)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "DELETE FROM task_packages WHERE task_id IN (SELECT id FROM tasks WHERE environment_id = $1)",
    )
    .bind(id)
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM tasks WHERE environment_id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    sqlx::query("DELETE FROM sessions WHERE environment_id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    let res = sqlx::query("DELETE FROM environments WHERE id = $1")
        .bind(id)
        .execute(&mut **tx)
        .await?;
    if res.rows_affected() == 0 {
        return Err(StoreError::NotFound(format!("environment {id}")));
    }
    Ok(())
}
