//! Per-project quotas: what one project may keep in the store, with their
//! defaults, the counts the API checks before it accepts a request, and the
//! size checks of what an engine run stores (a task's model and result, its
//! status reports).
//!
//! The counts are read before the write they guard, outside its
//! transaction: two requests racing at the bound may both pass. They bound
//! what a tenant stores, not an exact number.

use crate::{row, Result, Store};
use std::fmt;

/// The quotas of every project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quotas {
    /// Environments per project.
    pub environments: u64,
    /// Packages per project.
    pub packages: u64,
    /// Deployments, deletions and actions queued or running at once per project.
    pub active_tasks: u64,
    /// Largest object model (an environment's, a session draft's, a
    /// template's, a task's result model), as JSON bytes.
    pub model_bytes: u64,
    /// Largest result of an action or static action, as JSON bytes.
    pub result_bytes: u64,
    /// Status reports one task may store.
    pub reports_per_task: u64,
    /// Total text of the status reports of one task, in bytes.
    pub report_bytes_per_task: u64,
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas {
            environments: 1000,
            packages: 500,
            active_tasks: 20,
            model_bytes: 4 * 1024 * 1024,
            result_bytes: 1024 * 1024,
            reports_per_task: 10_000,
            report_bytes_per_task: 4 * 1024 * 1024,
        }
    }
}

/// A quota a request or a task went past.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverQuota {
    /// The quota's name, as its setting names it (`model_bytes`, ...).
    pub quota: &'static str,
    pub limit: u64,
    /// What the request or task would have reached.
    pub wanted: u64,
    /// What was being counted or measured, for people.
    pub what: &'static str,
}

impl fmt::Display for OverQuota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} would be {} but the project's quota '{}' allows at most {}",
            self.what, self.wanted, self.quota, self.limit
        )
    }
}

fn within(
    quota: &'static str,
    what: &'static str,
    limit: u64,
    wanted: u64,
) -> std::result::Result<(), OverQuota> {
    if wanted > limit {
        Err(OverQuota {
            quota,
            limit,
            wanted,
            what,
        })
    } else {
        Ok(())
    }
}

impl Quotas {
    /// An object model of `bytes` JSON bytes.
    pub fn check_model(&self, bytes: u64) -> std::result::Result<(), OverQuota> {
        within(
            "model_bytes",
            "object model size in bytes",
            self.model_bytes,
            bytes,
        )
    }

    /// What a finished task stores: its model and its result, as JSON
    /// bytes. The worker calls this before it commits a task's outcome and
    /// fails the task with the error's text when it is over.
    pub fn check_task_output(
        &self,
        model_bytes: u64,
        result_bytes: u64,
    ) -> std::result::Result<(), OverQuota> {
        self.check_model(model_bytes)?;
        within(
            "result_bytes",
            "task result size in bytes",
            self.result_bytes,
            result_bytes,
        )
    }

    /// One more status report of `text_bytes` for a task that has stored
    /// `count` reports of `stored_bytes` in all. The worker calls this
    /// before it stores a report.
    pub fn check_report(
        &self,
        count: u64,
        stored_bytes: u64,
        text_bytes: u64,
    ) -> std::result::Result<(), OverQuota> {
        within(
            "reports_per_task",
            "number of status reports of the task",
            self.reports_per_task,
            count + 1,
        )?;
        within(
            "report_bytes_per_task",
            "size of the task's status reports in bytes",
            self.report_bytes_per_task,
            stored_bytes.saturating_add(text_bytes),
        )
    }
}

async fn count(store: &Store, sql: &str, project: &str) -> Result<u64> {
    let r = sqlx::query(sql)
        .bind(project)
        .fetch_one(store.reader())
        .await?;
    Ok(u64::try_from(row::int(&r, "n")?).unwrap_or(0))
}

impl Store {
    /// Environments of a project.
    pub async fn count_environments(&self, project: &str) -> Result<u64> {
        count(
            self,
            "SELECT COUNT(*) AS n FROM environments WHERE project_id = $1",
            project,
        )
        .await
    }

    /// Packages a project owns.
    pub async fn count_packages(&self, project: &str) -> Result<u64> {
        count(
            self,
            "SELECT COUNT(*) AS n FROM packages WHERE owner_id = $1",
            project,
        )
        .await
    }

    /// Tasks of a project that are queued or running.
    pub async fn count_active_tasks(&self, project: &str) -> Result<u64> {
        count(
            self,
            "SELECT COUNT(*) AS n FROM tasks WHERE project_id = $1 AND state IN ('queued', 'running')",
            project,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_quota_they_enforce() {
        let q = Quotas {
            model_bytes: 10,
            result_bytes: 5,
            reports_per_task: 2,
            report_bytes_per_task: 100,
            ..Quotas::default()
        };
        assert!(q.check_task_output(10, 5).is_ok());
        let e = q.check_task_output(11, 0).unwrap_err();
        assert_eq!((e.quota, e.limit, e.wanted), ("model_bytes", 10, 11));
        assert!(e.to_string().contains("'model_bytes' allows at most 10"));
        assert_eq!(q.check_task_output(1, 6).unwrap_err().quota, "result_bytes");
        assert!(q.check_report(1, 50, 50).is_ok());
        assert_eq!(
            q.check_report(2, 0, 1).unwrap_err().quota,
            "reports_per_task"
        );
        assert_eq!(
            q.check_report(0, 90, 11).unwrap_err().quota,
            "report_bytes_per_task"
        );
    }
}
