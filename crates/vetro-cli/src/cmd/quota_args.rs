//! The per-project quota options, shared by `vetro serve` (its API checks
//! the counts and sizes of requests) and `vetro worker` (workers check what
//! a task stores): one set of flags, one set of defaults.

use vetro_store::quotas::Quotas;

#[derive(clap::Args, Clone)]
pub struct QuotaArgs {
    /// Environments each project may have; past it, 403.
    #[arg(long, default_value_t = Quotas::default().environments)]
    max_environments: u64,
    /// Packages each project may own; past it, 403.
    #[arg(long, default_value_t = Quotas::default().packages)]
    max_packages: u64,
    /// Deployments, deletions and actions each project may have queued or running; past it, 403.
    #[arg(long, default_value_t = Quotas::default().active_tasks)]
    max_active_tasks: u64,
    /// Largest object model (session draft, template, a task's resulting
    /// model) in bytes of JSON; past it, 413 (or the task fails).
    #[arg(long, default_value_t = Quotas::default().model_bytes)]
    max_model_bytes: u64,
    /// Largest result of an action or static action call, in bytes of JSON; past it the task fails.
    #[arg(long, default_value_t = Quotas::default().result_bytes)]
    max_result_bytes: u64,
    /// Status reports one task may store; past it the task's engine is stopped and the task fails.
    #[arg(long, default_value_t = Quotas::default().reports_per_task)]
    max_reports_per_task: u64,
    /// Bytes of status report text one task may store; past it the task's engine is stopped and the task fails.
    #[arg(long, default_value_t = Quotas::default().report_bytes_per_task)]
    max_report_bytes_per_task: u64,
}

impl QuotaArgs {
    pub fn quotas(&self) -> Quotas {
        Quotas {
            environments: self.max_environments,
            packages: self.max_packages,
            active_tasks: self.max_active_tasks,
            model_bytes: self.max_model_bytes,
            result_bytes: self.max_result_bytes,
            reports_per_task: self.max_reports_per_task,
            report_bytes_per_task: self.max_report_bytes_per_task,
        }
    }
}
