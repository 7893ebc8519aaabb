//! Pages of deployments (every task but static actions), of one environment
//! or of every environment of a project, newest first: as typed rows
//! ([`Store::list_deployments`]) and as the API's JSON
//! ([`Store::deployment_page_json`]).
//!
//! A deployment's item carries the model it deployed, which can be large.
//! The parts of an item that never change (id, environment, the model as
//! Murano shows it, the action, creation time, kind) are written once as
//! JSON with the task ([`crate::queue::list_body`]); a page joins each body with the few
//! parts that do change (state, times, result) as text, so the model is
//! never parsed or written again after its task was queued.

use crate::json_page::{JsonPage, Listing};
use crate::page::{Page, PageRequest};
use crate::queue::{task_from_row, Deployment, TASK_COLUMNS};
use crate::{row, Backend, Result, Store, StoreError};
use sqlx::any::AnyRow;

/// Murano's state of a deployment over a row with `state`, `is_exception`,
/// `has_errors` and `has_warnings` (the same rule as [`Deployment::state`]).
const STATE: &str = "CASE WHEN p.state IN ('succeeded', 'failed', 'cancelled') THEN \
       CASE WHEN p.has_errors OR p.is_exception <> 0 OR p.state <> 'succeeded' \
            THEN 'completed_w_errors' \
            WHEN p.has_warnings THEN 'completed_w_warnings' ELSE 'success' END \
     ELSE CASE WHEN p.has_errors THEN 'running_w_errors' \
            WHEN p.has_warnings THEN 'running_w_warnings' ELSE 'running' END END";

/// What a page of deployments reads of each task.
const PAGE_COLUMNS: &str = "id, created, list_body, result, started, finished, updated, state, \
     is_exception, \
     EXISTS (SELECT 1 FROM status_reports s WHERE s.task_id = t.id AND s.level = 'error') \
       AS has_errors, \
     EXISTS (SELECT 1 FROM status_reports s WHERE s.task_id = t.id AND s.level = 'warning') \
       AS has_warnings";

impl Store {
    /// One page of the deployments of one environment, or of every
    /// environment of a project, newest first.
    pub async fn list_deployments(
        &self,
        environment_id: Option<&str>,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Deployment>> {
        let counts = "(SELECT COUNT(*) FROM status_reports s WHERE s.task_id = t.id AND s.level = 'error') AS n_errors, \
                      (SELECT COUNT(*) FROM status_reports s WHERE s.task_id = t.id AND s.level = 'warning') AS n_warnings";
        let cols = TASK_COLUMNS
            .split(", ")
            .map(|c| format!("t.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let (filter, binds) = self
            .deployment_filter(environment_id, project_id, page)
            .await?;
        let sql = format!(
            "SELECT {cols}, {counts} FROM tasks t WHERE {filter} \
             ORDER BY t.created DESC, t.id DESC LIMIT {}",
            page.fetch()
        );
        let mut q = sqlx::query(&sql);
        for b in &binds {
            q = q.bind(b);
        }
        let rows = q.fetch_all(self.reader()).await?;
        let items = rows
            .iter()
            .map(|r| {
                Ok(Deployment {
                    task: task_from_row(r)?,
                    errors: row::int(r, "n_errors")?,
                    warnings: row::int(r, "n_warnings")?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Page::from_fetched(items, page))
    }

    /// [`Store::list_deployments`] as the API's JSON: each deployment with
    /// `id`, `environment_id`, `description`, `action`, `created`, `kind`
    /// (see [`crate::queue::list_body`]), `result` (`{}` before there is one), `started`
    /// (its creation while queued), `finished`, `state` (Murano's:
    /// [`Deployment::state`]), `updated` and `task_state`.
    pub async fn deployment_page_json(
        &self,
        environment_id: Option<&str>,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<JsonPage> {
        let (filter, binds) = self
            .deployment_filter(environment_id, project_id, page)
            .await?;
        let changing = format!(
            "'started', COALESCE(p.started, p.created), 'finished', p.finished, \
             'state', {STATE}, 'updated', p.updated, 'task_state', p.state"
        );
        // The body without its closing brace, the result as stored, then
        // the changing members without their opening brace.
        let item = match self.backend() {
            // Cut as bytes: on text, SQLite's `substr` and `length` count
            // characters, reading the whole body twice.
            Backend::Sqlite => format!(
                "CAST(substr(CAST(p.list_body AS BLOB), 1, octet_length(p.list_body) - 1) AS TEXT) \
                 || ',\"result\":' || COALESCE(p.result, '{{}}') || ',' || \
                 substr(json_object({changing}), 2)"
            ),
            Backend::Postgres => format!(
                "left(p.list_body, -1) || ',\"result\":' || COALESCE(p.result, '{{}}') || ',' || \
                 substr(json_build_object({changing})::text, 2)"
            ),
        };
        let listing = Listing {
            from: "tasks",
            columns: PAGE_COLUMNS,
            item: &item,
            filter,
            binds,
            order: "created DESC, id DESC".into(),
            id: "id",
            scope: Some(project_id.to_string()),
        };
        self.json_page(&listing, page).await
    }

    /// The condition on `tasks t` of a page of deployments and its bound values.
    async fn deployment_filter(
        &self,
        environment_id: Option<&str>,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<(String, Vec<String>)> {
        let mut filter = String::from("t.kind <> 'static_action' AND t.project_id = $1");
        let mut binds = vec![project_id.to_string()];
        if let Some(e) = environment_id {
            binds.push(e.to_string());
            filter.push_str(&format!(" AND t.environment_id = ${}", binds.len()));
        }
        if let Some(m) = &page.marker {
            let created = self
                .deployment_marker(m, environment_id, project_id)
                .await?;
            binds.push(created);
            binds.push(m.clone());
            let (c, i) = (binds.len() - 1, binds.len());
            filter.push_str(&format!(
                " AND (t.created < ${c} OR (t.created = ${c} AND t.id < ${i}))"
            ));
        }
        Ok((filter, binds))
    }

    /// The creation time of the deployment `id` that a page starts after,
    /// when it belongs to the listing.
    async fn deployment_marker(
        &self,
        id: &str,
        environment_id: Option<&str>,
        project_id: &str,
    ) -> Result<String> {
        let r = sqlx::query(
            "SELECT project_id, environment_id, created FROM tasks \
             WHERE id = $1 AND kind <> 'static_action'",
        )
        .bind(id)
        .fetch_optional(self.reader())
        .await?;
        let fits = |r: &AnyRow| -> Result<bool> {
            Ok(row::text(r, "project_id")? == project_id
                && environment_id.is_none_or(|e| {
                    row::opt_text(r, "environment_id").is_ok_and(|x| x.as_deref() == Some(e))
                }))
        };
        match r {
            Some(r) if fits(&r)? => row::text(&r, "created"),
            _ => Err(StoreError::Invalid(format!(
                "marker '{id}' is not a deployment of this listing"
            ))),
        }
    }
}
