//! `vetro db migrate`: apply the service's database migrations.

use crate::report::{INVALID, USAGE};
use clap::Subcommand;
use std::process::ExitCode;
use vetro_store::{redact_url, Store, DEFAULT_URL};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Subcommand)]
enum DbCommand {
    /// Create or upgrade the schema.
    Migrate {
        /// Database URL: sqlite://FILE or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_URL)]
        db: String,
    },
}

/// A current-thread runtime for one-shot database commands.
pub fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            None
        }
    }
}

/// Connects and migrates, printing what went wrong.
pub async fn open(url: &str) -> Result<Store, ExitCode> {
    let store = Store::connect(url).await.map_err(|e| {
        eprintln!("error: cannot open the database {}: {e}", redact_url(url));
        match e {
            vetro_store::StoreError::Invalid(_) => ExitCode::from(INVALID),
            _ => ExitCode::from(USAGE),
        }
    })?;
    store.migrate().await.map_err(|e| {
        eprintln!(
            "error: cannot migrate the database {}: {e}",
            redact_url(url)
        );
        ExitCode::from(USAGE)
    })?;
    Ok(store)
}

pub fn run(a: Args) -> ExitCode {
    let DbCommand::Migrate { db } = a.command;
    let Some(rt) = runtime() else {
        return ExitCode::from(USAGE);
    };
    rt.block_on(async {
        match open(&db).await {
            Ok(store) => {
                store.close().await;
                println!("database {} is up to date", redact_url(&db));
                ExitCode::SUCCESS
            }
            Err(code) => code,
        }
    })
}
