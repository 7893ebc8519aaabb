//! `vetro serve`: the Murano-compatible REST API and the web dashboard on one database, with
//! engine workers in the same process running the queued deployments,
//! deletions and actions.

use super::service_runtime::{init_tracing, runtime, shutdown_signal};
use super::worker::{run_workers, WorkerArgs};
use crate::report::USAGE;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use vetro_server::worker::Workers;
use vetro_server::{AppState, Limits};
use vetro_store::{redact_url, DEFAULT_URL};

#[derive(clap::Args)]
pub struct Args {
    /// Database URL: sqlite://FILE (default: vetro.db in the working directory) or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_URL)]
    db: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8082")]
    listen: SocketAddr,
    /// Deployment workers in this process: tasks run at once, each in an engine
    /// process of its own (0: only the API, no workers at all; run `vetro worker` processes instead).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(0..=256))]
    workers: u64,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    http: super::serve_http::HttpArgs,
    #[command(flatten)]
    auth: super::serve_auth::AuthArgs,
}

pub fn run(a: Args) -> ExitCode {
    init_tracing();
    let mut config = match a.worker.config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async move {
        let keystone = match a.auth.keystone().await {
            Ok(k) => k,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(USAGE);
            }
        };
        if let Some(k) = &keystone {
            if let Err(e) = super::serve_auth::check_trustee(k, &config.backend).await {
                eprintln!("error: {e}");
                return ExitCode::from(USAGE);
            }
            // The trustee of every task's trust: it deletes each when its task ends.
            config.trustee = Some(k.validator.service_credentials().await);
        }
        let store = match super::db::open(&a.db).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        let listener = match tokio::net::TcpListener::bind(a.listen).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: cannot listen on {}: {e}", a.listen);
                return ExitCode::from(USAGE);
            }
        };
        let addr = listener
            .local_addr()
            .map(|x| x.to_string())
            .unwrap_or_default();
        let mut limits = Limits::default();
        a.http.apply(&mut limits);
        // The API and every worker (in-process or `vetro worker`) take the same quota options.
        limits.quotas = config.quotas.clone();
        let st = AppState {
            store: store.clone(),
            limits: Arc::new(limits),
            default_policy: config.default_policy.clone(),
            keystone: keystone.clone(),
            pages: Default::default(),
        };
        // Printed on stdout so scripts can wait for it (and learn the port with --listen 127.0.0.1:0).
        let auth = match &keystone {
            Some(k) => format!("Keystone at {}", k.validator.keystone_url()),
            None => "API tokens".into(),
        };
        println!(
            "vetro serve: listening on http://{addr} (database {}, {} worker(s), {auth}, backend {})",
            redact_url(&a.db),
            a.workers,
            config.backend.name()
        );
        // The API and the workers stop together: the first signal ends the
        // server's accept loop and tells the workers to hand back their tasks.
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let n = if a.workers == 0 {
            Workers {
                deployments: 0,
                static_actions: 0,
            }
        } else {
            a.worker.workers(a.workers)
        };
        let workers = run_workers(&store, n, config, async {
            let _ = stop_rx.await;
        });
        let server = async move {
            let limits = st.limits.clone();
            let app = vetro_server::router_with(st.clone(), vetro_dashboard::router(st));
            let r = vetro_server::listen::serve(app, listener, &limits, shutdown_signal()).await;
            let _ = stop_tx.send(());
            r
        };
        let (result, ()) = tokio::join!(server, workers);
        store.close().await;
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: the server stopped: {e}");
                ExitCode::from(USAGE)
            }
        }
    })
}
