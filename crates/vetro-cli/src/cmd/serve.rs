//! `vetro serve`: the Murano-compatible REST API on one database. Deploy,
//! delete and action requests are queued as tasks for engine workers.

use crate::report::USAGE;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
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
    /// Default deployment policy (Congress syntax) for projects that have not set their own.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("VETRO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

pub fn run(a: Args) -> ExitCode {
    init_tracing();
    let default_policy = match &a.policy {
        None => None,
        Some(p) => match std::fs::read_to_string(p) {
            Ok(t) => Some(Arc::<str>::from(t)),
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", p.display());
                return ExitCode::from(USAGE);
            }
        },
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(USAGE);
        }
    };
    rt.block_on(async move {
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
        let st = AppState {
            store: store.clone(),
            limits: Arc::new(Limits::default()),
            default_policy,
        };
        // Printed on stdout so scripts can wait for it (and learn the port with --listen 127.0.0.1:0).
        println!(
            "vetro serve: listening on http://{addr} (database {})",
            redact_url(&a.db)
        );
        let result = vetro_server::serve(st, listener, shutdown_signal()).await;
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
