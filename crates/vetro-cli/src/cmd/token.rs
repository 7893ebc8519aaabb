//! `vetro token create`: a new API token for a project and user.

use crate::report::USAGE;
use clap::Subcommand;
use std::process::ExitCode;
use vetro_store::tokens::Principal;
use vetro_store::DEFAULT_URL;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token and print it (it is stored hashed and shown only once).
    Create {
        /// Database URL: sqlite://FILE or postgres://USER@HOST/DB.
        #[arg(long, default_value = DEFAULT_URL)]
        db: String,
        /// The project (tenant) the token acts in.
        #[arg(long)]
        project: String,
        /// The user the token acts as.
        #[arg(long)]
        user: String,
        /// Give the token the admin role (publish packages, manage categories, list all projects).
        #[arg(long)]
        admin: bool,
    },
}

pub fn run(a: Args) -> ExitCode {
    let TokenCommand::Create {
        db,
        project,
        user,
        admin,
    } = a.command;
    let Some(rt) = super::db::runtime() else {
        return ExitCode::from(USAGE);
    };
    rt.block_on(async {
        let store = match super::db::open(&db).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        let who = Principal {
            project_id: project,
            user_id: user,
            is_admin: admin,
        };
        let result = store.create_token(&who).await;
        store.close().await;
        match result {
            Ok(token) => {
                println!("{token}");
                ExitCode::SUCCESS
            }
            Err(vetro_store::StoreError::Invalid(m)) => {
                eprintln!("error: {m}");
                ExitCode::from(crate::report::INVALID)
            }
            Err(e) => {
                eprintln!("error: cannot store the token: {e}");
                ExitCode::from(USAGE)
            }
        }
    })
}
