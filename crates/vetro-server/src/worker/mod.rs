//! Engine workers: they take queued tasks from the store and run them with
//! [`vetro_deploy::run_task`].
//!
//! A worker claims one task at a time under a lease, finds and unpacks its
//! packages, runs its engine in an engine process of its own (`engine`),
//! renews the lease meanwhile, stores the engine's status reports as they
//! come, and commits the result in one transaction. Any number of workers,
//! in `vetro serve` or in separate `vetro worker` processes, may share a
//! database: the store's guarded claims hand each task to exactly one of
//! them, and the reaper (run by every worker) requeues or fails the tasks of
//! a worker that died.
//!
//! Workers serve a lane: deployments (deploys, deletions, actions) or static
//! actions, which answer a waiting API call and so never queue behind
//! deployments. Within a lane, projects take turns and each may run at most
//! [`WorkerConfig::max_running_per_project`] tasks at once.
//!
//! `resolver` finds packages in the catalog; `engine` runs a prepared task's
//! engine; `run` executes one task.

mod engine;
pub(crate) mod resolver;
mod run;
mod trust;

pub use engine::{run_to_end, OsLimits, Runner, ENGINE_OPEN_FILES};
pub use resolver::CatalogResolver;
pub use vetro_store::tasks::Lane;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use vetro_deploy::TaskLimits;
use vetro_store::tasks::{ClaimRules, Reaped};
use vetro_store::Store;

/// How workers run tasks.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// How long a claim lasts without renewal; renewed every third of it.
    pub lease: Duration,
    /// How often an idle worker looks at the queue when nothing wakes it
    /// (tasks queued by another process).
    pub poll: Duration,
    /// Runs a task may have before a lease expiry fails it instead of
    /// requeueing it.
    pub max_attempts: i64,
    /// Where package archives are unpacked (shared by the workers of a machine).
    pub packages_dir: PathBuf,
    /// The policy of projects that set none.
    pub default_policy: Option<Arc<str>>,
    pub limits: TaskLimits,
    /// Where engines run (an engine process per task in the service).
    pub runner: Runner,
    /// The cloud every task deploys to (the simulator by default). An
    /// OpenStack cloud's credentials are resolved once, when the worker
    /// starts, and handed to each engine process with its task.
    pub backend: vetro_deploy::Backend,
    /// Longest a task may take from its claim to its result, whatever it
    /// does; past it the engine is stopped and the task fails.
    pub wall_clock: Duration,
    /// Tasks of one lane one project may run at once, over every worker of
    /// the database; `None`: no bound.
    pub max_running_per_project: Option<i64>,
    /// What one task may store: its status reports (count and bytes), its
    /// model and its result. Past one, the task fails naming the quota.
    pub quotas: vetro_store::quotas::Quotas,
    /// The service user every task's Keystone trust names as trustee, when
    /// it is not the OpenStack backend's: a finished task's trust is deleted
    /// with these credentials (or the backend's).
    pub trustee: Option<vetro_openstack::clouds::Credentials>,
    /// The machine's name, which starts each worker's name in its task
    /// leases (the CLI passes `$HOSTNAME`).
    pub host: String,
}

/// The default wall-clock limit of a task: 30 minutes.
pub const DEFAULT_WALL_CLOCK: Duration = Duration::from_secs(30 * 60);

/// The default number of tasks of one lane a project may run at once.
pub const DEFAULT_MAX_RUNNING_PER_PROJECT: i64 = 2;

impl Default for WorkerConfig {
    fn default() -> WorkerConfig {
        WorkerConfig {
            lease: Duration::from_secs(30),
            poll: Duration::from_millis(500),
            max_attempts: 2,
            packages_dir: std::env::temp_dir().join("vetro-packages"),
            default_policy: None,
            limits: TaskLimits::default(),
            runner: Runner::InProcess,
            backend: vetro_deploy::Backend::Simulated,
            wall_clock: DEFAULT_WALL_CLOCK,
            max_running_per_project: Some(DEFAULT_MAX_RUNNING_PER_PROJECT),
            quotas: vetro_store::quotas::Quotas::default(),
            trustee: None,
            host: "localhost".into(),
        }
    }
}

/// One engine worker.
#[derive(Clone)]
pub struct Worker {
    store: Store,
    id: String,
    config: Arc<WorkerConfig>,
    lane: Lane,
}

impl Worker {
    /// A worker named `name` (unique among the workers of a database: it
    /// owns the leases it takes).
    pub fn new(store: Store, name: impl Into<String>, config: Arc<WorkerConfig>) -> Worker {
        Worker {
            store,
            id: name.into(),
            config,
            lane: Lane::Any,
        }
    }

    /// The same worker, taking only the tasks of `lane`.
    pub fn in_lane(mut self, lane: Lane) -> Worker {
        self.lane = lane;
        self
    }

    /// A process-unique worker name: host, process id, index, random tail.
    pub fn unique_name(host: &str, index: usize) -> String {
        let tail = &vetro_store::new_id()[..8];
        format!("{host}:{}:{index}:{tail}", std::process::id())
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Runs tasks until `shutdown` turns true. A task running at shutdown is
    /// stopped and put back in the queue for another worker.
    pub async fn run(self, mut shutdown: watch::Receiver<bool>) {
        tracing::info!(worker = %self.id, "engine worker started");
        let mut last_reap: Option<Instant> = None;
        while !*shutdown.borrow() {
            let queued = self.store.task_queued();
            tokio::pin!(queued);
            queued.as_mut().enable();
            if last_reap.is_none_or(|t| t.elapsed() >= self.config.lease / 2) {
                self.reap().await;
                last_reap = Some(Instant::now());
            }
            let rules = ClaimRules {
                lane: self.lane,
                max_running_per_project: self.config.max_running_per_project,
            };
            match self
                .store
                .claim_next(&self.id, self.config.lease, &rules)
                .await
            {
                Ok(Some(task)) => {
                    run::execute(&self, task, &mut shutdown).await;
                    continue;
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(worker = %self.id, "cannot claim a task: {e}"),
            }
            tokio::select! {
                _ = &mut queued => {}
                _ = tokio::time::sleep(self.config.poll) => {}
                _ = shutdown.changed() => {}
            }
        }
        tracing::info!(worker = %self.id, "engine worker stopped");
    }

    async fn reap(&self) {
        match self.store.reap_expired(self.config.max_attempts).await {
            Ok(reaped) => {
                for r in reaped {
                    match r {
                        Reaped::Requeued(id) => {
                            tracing::warn!(task = %id, "lease expired; task requeued")
                        }
                        Reaped::Failed(id) => {
                            tracing::warn!(task = %id, "lease expired; task failed");
                            // It has ended: so has its trust.
                            match self.store.get_task(&id).await {
                                Ok(task) => trust::end(self, &task).await,
                                Err(e) => {
                                    tracing::warn!(task = %id, "cannot read the failed task: {e}")
                                }
                            }
                        }
                    }
                }
            }
            Err(e) => tracing::warn!(worker = %self.id, "cannot reap expired tasks: {e}"),
        }
    }
}

/// How many workers of each lane to start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workers {
    pub deployments: usize,
    pub static_actions: usize,
}

/// Starts the workers on the current runtime; they stop when `shutdown` turns true.
pub fn spawn_workers(
    store: &Store,
    n: Workers,
    config: Arc<WorkerConfig>,
    shutdown: &watch::Receiver<bool>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let lanes = std::iter::repeat_n(Lane::Deployments, n.deployments)
        .chain(std::iter::repeat_n(Lane::StaticActions, n.static_actions));
    lanes
        .enumerate()
        .map(|(i, lane)| {
            let w = Worker::new(
                store.clone(),
                Worker::unique_name(&config.host, i),
                config.clone(),
            )
            .in_lane(lane);
            tokio::spawn(w.run(shutdown.clone()))
        })
        .collect()
}
