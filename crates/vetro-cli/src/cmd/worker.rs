//! `vetro worker`: engine workers as their own process, sharing the API's
//! database (PostgreSQL for several processes or machines). Also the worker
//! options `vetro serve` takes for its in-process workers.

use crate::report::USAGE;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use vetro_policy::datalog::{Engine, PolicyKind};
use vetro_policy::enforce::load_rules;
use vetro_server::worker::{
    spawn_workers, Runner, WorkerConfig, Workers, DEFAULT_MAX_RUNNING_PER_PROJECT,
};
use vetro_store::{redact_url, Store, DEFAULT_URL};

/// How engine workers run tasks (shared by `serve` and `worker`).
#[derive(clap::Args, Clone)]
pub struct WorkerArgs {
    /// Default deployment policy (Congress syntax) for projects that have not set their own.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Folder where package archives are unpacked (default: vetro-packages in the temporary folder).
    #[arg(long, value_name = "DIR")]
    pub packages_dir: Option<PathBuf>,
    /// Seconds a worker's claim on a task lasts without renewal; a task whose
    /// worker stopped answering is taken over after this.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub lease_seconds: u64,
    /// Runs a task may get before a lost worker fails it instead of requeueing it.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(i64).range(1..=100))]
    pub max_attempts: i64,
    /// Longest time one deployment or action may take, in seconds (wall clock,
    /// from its claim to its result); its engine is stopped past it and the task fails.
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub task_timeout: u64,
    /// Most MiB one task's engine may allocate (its engine process also gets an
    /// address-space limit from this).
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(16..=1 << 30))]
    pub task_max_memory: u64,
    /// Most workflow steps one task's engine may run.
    #[arg(long, default_value_t = 100_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub task_max_steps: u64,
    /// Most green threads (Parallel branches, pselect items) one task's engine runs at once.
    #[arg(long, default_value_t = vetro_dsl::runtime::limits::DEFAULT_MAX_GREEN_THREADS as u64,
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub task_max_green_threads: u64,
    /// Tasks one project may run at once in each lane (deployments, static
    /// actions), over every worker of the database; 0: no bound.
    #[arg(long, default_value_t = DEFAULT_MAX_RUNNING_PER_PROJECT as u64,
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub max_running_per_project: u64,
    /// Workers for static action calls, which answer a waiting request and
    /// never queue behind deployments (besides the deployment workers).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(0..=256))]
    pub static_workers: u64,
    #[command(flatten)]
    pub quotas: super::quota_args::QuotaArgs,
    #[command(flatten)]
    pub cloud: super::cloud::CloudArgs,
}

impl WorkerArgs {
    /// The worker configuration, reading the policy file.
    pub fn config(&self) -> Result<WorkerConfig, ExitCode> {
        let mut c = WorkerConfig {
            lease: Duration::from_secs(self.lease_seconds),
            max_attempts: self.max_attempts,
            quotas: self.quotas.quotas(),
            host: std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".into()),
            ..WorkerConfig::default()
        };
        if let Some(dir) = &self.packages_dir {
            c.packages_dir = dir.clone();
        }
        let timeout = Duration::from_secs(self.task_timeout);
        c.wall_clock = timeout;
        c.limits.engine.max_time = Some(timeout);
        c.limits.engine.max_memory = Some((self.task_max_memory as usize) << 20);
        c.limits.engine.max_steps = Some(self.task_max_steps);
        c.limits.engine.max_green_threads = Some(self.task_max_green_threads as usize);
        c.max_running_per_project =
            (self.max_running_per_project > 0).then_some(self.max_running_per_project as i64);
        c.runner = engine_runner()?;
        c.default_policy = self.default_policy()?;
        // Credentials are read once, now: a typo shows at startup, and engine
        // processes (no environment, no files but their packages) get them
        // with their task.
        if self.cloud.agent_results.is_some() {
            eprintln!("error: --agent-results is for `vetro run` and `vetro test`: the service's simulator does not take it");
            return Err(ExitCode::from(USAGE));
        }
        c.backend = self.cloud.task_backend().map_err(|e| {
            eprintln!("error: --backend {}: {e}", self.cloud.backend.name());
            ExitCode::from(USAGE)
        })?;
        Ok(c)
    }

    /// The workers to start next to `deployments` deployment workers.
    pub fn workers(&self, deployments: u64) -> Workers {
        Workers {
            deployments: deployments as usize,
            static_actions: self.static_workers as usize,
        }
    }

    /// The policy file's text, refused at startup when it does not compile
    /// (as `PUT /v1/policy` refuses a project's policy), not at the first
    /// deployment.
    pub fn default_policy(&self) -> Result<Option<Arc<str>>, ExitCode> {
        let Some(p) = &self.policy else {
            return Ok(None);
        };
        // Size-limited and strict UTF-8, as every input file.
        let mut sources = vetro_diag::SourceMap::new();
        let id = vetro_yaml::read_source(p, &mut sources, vetro_yaml::DEFAULT_MAX_INPUT).map_err(
            |d| {
                eprintln!("error: cannot read {}", d.message);
                ExitCode::from(USAGE)
            },
        )?;
        let text = sources.text(id);
        let mut engine = Engine::new();
        if let Err(e) = load_rules(&mut engine, text, PolicyKind::Nonrecursive) {
            let at = match e.span {
                Some(pos) => format!("{}:{}:{}", p.display(), pos.line, pos.col),
                None => p.display().to_string(),
            };
            let message = vetro_diag::clip(&e.message);
            eprintln!(
                "error: {}: {at}: the policy does not compile: {message}",
                e.class.label()
            );
            return Err(ExitCode::from(USAGE));
        }
        Ok(Some(Arc::from(text)))
    }
}

/// Engines run in processes of this very binary (`vetro engine-task`).
fn engine_runner() -> Result<Runner, ExitCode> {
    match std::env::current_exe() {
        Ok(program) => Ok(Runner::Process {
            program,
            args: vec![super::engine_task::SUBCOMMAND.into()],
        }),
        Err(e) => {
            eprintln!("error: cannot find this program's own file to start engine processes: {e}");
            Err(ExitCode::from(USAGE))
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Database URL shared with `vetro serve`: postgres://USER@HOST/DB (or sqlite://FILE on one machine).
    #[arg(long, default_value = DEFAULT_URL)]
    db: String,
    /// Deployment tasks this process runs at once, each in an engine process of its own.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=256))]
    concurrency: u64,
    /// The cloud of clouds.yaml holding the Keystone service user's
    /// credentials (what `vetro serve --auth keystone --keystone-cloud`
    /// names): every task's trust names that user as trustee, and this
    /// process deletes each trust when its task ends. Default: the
    /// --backend openstack credentials; without either, trusts are left to
    /// expire.
    #[arg(long, value_name = "NAME")]
    keystone_cloud: Option<String>,
    #[command(flatten)]
    worker: WorkerArgs,
}

/// The trustee's credentials of `--keystone-cloud`, authenticated once so
/// that a wrong one shows at start.
async fn trustee(cloud: &str) -> Result<vetro_openstack::clouds::Credentials, String> {
    let env = |k: &str| std::env::var(k).ok();
    let cwd = std::env::current_dir().unwrap_or_default();
    let creds = vetro_openstack::clouds::from_clouds_yaml(cloud, &env, &cwd)
        .map_err(|e| format!("--keystone-cloud: {e}"))?;
    let http = vetro_openstack::http_client(Duration::from_secs(30))?;
    vetro_openstack::keystone::Session::new(creds.clone(), http)
        .user_id()
        .await
        .map_err(|e| format!("--keystone-cloud {cloud}: {e}"))?;
    Ok(creds)
}

/// Runs `n` workers on `store` until `stop` resolves, then lets each hand
/// back its running task and waits for them.
pub async fn run_workers(
    store: &Store,
    n: Workers,
    config: WorkerConfig,
    stop: impl std::future::Future<Output = ()>,
) {
    let (tx, rx) = watch::channel(false);
    let handles = spawn_workers(store, n, Arc::new(config), &rx);
    stop.await;
    let _ = tx.send(true);
    for h in handles {
        let _ = h.await;
    }
}

pub fn run(a: Args) -> ExitCode {
    super::service_runtime::init_tracing();
    let mut config = match a.worker.config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let rt = match super::service_runtime::runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async move {
        if let Some(cloud) = &a.keystone_cloud {
            match trustee(cloud).await {
                Ok(creds) => config.trustee = Some(creds),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(USAGE);
                }
            }
        }
        let store = match super::db::open(&a.db).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        println!(
            "vetro worker: {} deployment and {} static action worker(s) on database {}, backend {}",
            a.concurrency,
            a.worker.static_workers,
            redact_url(&a.db),
            config.backend.name()
        );
        run_workers(
            &store,
            a.worker.workers(a.concurrency),
            config,
            super::service_runtime::shutdown_signal(),
        )
        .await;
        store.close().await;
        ExitCode::SUCCESS
    })
}
