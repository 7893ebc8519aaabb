//! Pages of deployments (every task but static actions), of one environment
//! or of every environment of a project, newest first, with the counts of
//! their error and warning reports (which decide Murano's state).

use crate::page::{Page, PageRequest};
use crate::queue::{task_from_row, Deployment, TASK_COLUMNS};
use crate::{row, Result, Store, StoreError};
use sqlx::any::AnyRow;

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
