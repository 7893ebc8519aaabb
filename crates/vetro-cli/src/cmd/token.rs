//! `vetro token create | list | revoke`: the service's API tokens.

use crate::report::{INVALID, USAGE};
use clap::Subcommand;
use std::process::ExitCode;
use vetro_store::tokens::{expiry_from_now, Principal, TokenInfo};
use vetro_store::{Store, StoreError, DEFAULT_URL};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(clap::Args)]
struct Db {
    /// Database URL: sqlite://FILE or postgres://USER@HOST/DB.
    #[arg(long, default_value = DEFAULT_URL)]
    db: String,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token and print it (it is stored hashed and shown only once).
    Create {
        #[command(flatten)]
        db: Db,
        /// The project (tenant) the token acts in.
        #[arg(long)]
        project: String,
        /// The user the token acts as.
        #[arg(long)]
        user: String,
        /// Give the token the admin role: it may also list every project's environments, publish its project's packages and manage categories; it never reaches another project's environments, templates or private packages.
        #[arg(long)]
        admin: bool,
        /// When the token stops working: a duration from now (30d, 12h, 90m) or a UTC time (2027-01-31T00:00:00Z, 2027-01-31). Default: never.
        #[arg(long, value_name = "WHEN")]
        expires: Option<String>,
    },
    /// List the stored tokens (their ids, never the tokens themselves).
    List {
        #[command(flatten)]
        db: Db,
        /// Only this project's tokens.
        #[arg(long)]
        project: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Revoke a token; every server and worker refuses it within a second.
    Revoke {
        #[command(flatten)]
        db: Db,
        /// The token's id, as `vetro token list` shows it, or the token itself.
        token: String,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

fn fail(e: StoreError) -> ExitCode {
    match e {
        StoreError::Invalid(m) => {
            eprintln!("error: {m}");
            ExitCode::from(INVALID)
        }
        StoreError::NotFound(what) => {
            eprintln!("error: no {what}");
            ExitCode::from(INVALID)
        }
        e => {
            eprintln!("error: the token store failed: {e}");
            ExitCode::from(USAGE)
        }
    }
}

pub fn run(a: Args) -> ExitCode {
    let Some(rt) = super::db::runtime() else {
        return ExitCode::from(USAGE);
    };
    let url = match &a.command {
        TokenCommand::Create { db, .. }
        | TokenCommand::List { db, .. }
        | TokenCommand::Revoke { db, .. } => db.db.clone(),
    };
    rt.block_on(async {
        let store = match super::db::open(&url).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        let code = match execute(&store, a.command).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        };
        store.close().await;
        code
    })
}

async fn execute(store: &Store, command: TokenCommand) -> Result<(), StoreError> {
    match command {
        TokenCommand::Create {
            project,
            user,
            admin,
            expires,
            ..
        } => {
            let expires = expires.map(|e| expiry_from_now(&e)).transpose()?;
            let who = Principal {
                project_id: project,
                user_id: user,
                is_admin: admin,
            };
            println!("{}", store.create_token_until(&who, expires).await?);
        }
        TokenCommand::List {
            project, format, ..
        } => {
            let tokens = store.list_tokens(project.as_deref()).await?;
            match format {
                Format::Json => {
                    let list: Vec<_> = tokens.iter().map(as_json).collect();
                    println!("{}", serde_json::Value::Array(list));
                }
                Format::Text => {
                    println!("ID            PROJECT  USER  ADMIN  CREATED  EXPIRES");
                    for t in &tokens {
                        let p = &t.principal;
                        println!(
                            "{}  {}  {}  {}  {}  {}",
                            t.id,
                            p.project_id,
                            p.user_id,
                            if p.is_admin { "yes" } else { "no" },
                            t.created,
                            t.expires.as_deref().unwrap_or("never")
                        );
                    }
                }
            }
        }
        TokenCommand::Revoke { token, .. } => {
            let t = store.revoke_token(&token).await?;
            println!(
                "revoked token {} (project {}, user {})",
                t.id, t.principal.project_id, t.principal.user_id
            );
        }
    }
    Ok(())
}

fn as_json(t: &TokenInfo) -> serde_json::Value {
    serde_json::json!({
        "id": t.id,
        "project": t.principal.project_id,
        "user": t.principal.user_id,
        "admin": t.principal.is_admin,
        "created": t.created,
        "expires": t.expires,
    })
}
