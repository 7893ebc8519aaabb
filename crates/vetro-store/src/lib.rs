//! Storage for the vetro service.
//!
//! One [`Store`] over SQLite (the embedded default) or PostgreSQL, through
//! sqlx's `Any` driver with runtime queries. The SQL is written once in the
//! common dialect (`$N` placeholders, TEXT JSON, fixed-width text timestamps,
//! BIGINT flags); the two migration sets differ only in column types and in
//! PostgreSQL's notify triggers (see [`changes`]).
//!
//! Modules, one table family each: [`tokens`], [`environments`], [`sessions`],
//! [`queue`] (enqueueing tasks and reading reports and results),
//! [`deployments`] (pages of deployments),
//! [`tasks`] (the worker's side: claims, leases, results, the reaper),
//! [`catalog`] (packages and categories), [`lookup`] (packages by name or
//! class, through indexes), [`search`] (the catalog's search
//! and pages), [`templates`], [`policies`],
//! [`quotas`] (per-project limits and the counts they need), [`web_sessions`]
//! (the web dashboard's sign-ins), [`page`] (pages of the listings and the
//! version of what they show).
//! Every function that writes more than one row takes a transaction, so a
//! failing request leaves nothing half-written.

pub mod catalog;
pub mod changes;
pub mod deployments;
pub mod environments;
mod error;
pub mod lookup;
pub mod page;
pub mod policies;
pub mod queue;
pub mod quotas;
mod retry;
mod row;
pub mod search;
pub mod sessions;
pub mod tasks;
pub mod templates;
pub mod time;
pub mod tokens;
pub mod web_sessions;

pub use error::StoreError;
pub use retry::RETRY_FOR;
pub use sqlx;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Connection, Executor};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::futures::Notified;
use tokio::sync::Notify;

pub type Result<T> = std::result::Result<T, StoreError>;
pub type Tx<'a> = sqlx::Transaction<'a, sqlx::Any>;

/// Which database a [`Store`] talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A connection pool plus the backend it points at.
#[derive(Clone, Debug)]
pub struct Store {
    pool: AnyPool,
    /// Read-only connections for queries outside transactions. On a SQLite
    /// file these are separate connections (WAL lets them read while the one
    /// writer writes); elsewhere it is the same pool as `pool`.
    reader: AnyPool,
    backend: Backend,
    /// Recently verified tokens (see [`tokens`]).
    tokens: Arc<tokens::TokenCache>,
    /// Wakes this process's idle workers when a task is queued; workers in
    /// other processes find it by polling.
    queued: Arc<Notify>,
    /// Counts the reports and task endings written through this store, and
    /// (see [`changes`]) those other processes write, so live views learn
    /// of them at once.
    written: Arc<tokio::sync::watch::Sender<u64>>,
    /// Passes on the writes of other processes to `written`.
    watcher: Arc<changes::Watcher>,
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// The database URL used when none is given: a SQLite file in the working directory.
pub const DEFAULT_URL: &str = "sqlite://vetro.db";

impl Store {
    /// Connects to `url` (`sqlite://path`, `sqlite::memory:`, `postgres://...`).
    /// SQLite files are created when missing.
    pub async fn connect(url: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::Invalid(format!(
                "unsupported database URL (expected sqlite:// or postgres://): {}",
                redact_url(url)
            )));
        };
        let url = match backend {
            Backend::Sqlite if !url.contains('?') && !url.contains(":memory:") => {
                format!("{url}?mode=rwc")
            }
            _ => url.to_string(),
        };
        let options = AnyConnectOptions::from_str(&url)?;
        check_connection(&options, backend).await?;
        let (pool, reader) = match backend {
            Backend::Sqlite => {
                let pool = sqlite_writer(options.clone()).await?;
                // An in-memory database exists once per connection, so it
                // cannot have separate readers.
                let reader = if url.contains(":memory:") || url.contains("mode=memory") {
                    pool.clone()
                } else {
                    sqlite_readers(options)
                };
                (pool, reader)
            }
            Backend::Postgres => {
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(30))
                    .test_before_acquire(false)
                    .before_acquire(|conn, meta| {
                        Box::pin(async move {
                            // A connection in steady use is known to work; one
                            // idle a while may have been closed by the server.
                            if meta.idle_for >= PING_IDLE {
                                conn.ping().await?;
                            }
                            Ok(true)
                        })
                    })
                    .connect_with(options)
                    .await?;
                (pool.clone(), pool)
            }
        };
        Ok(Store {
            pool,
            reader,
            backend,
            tokens: Arc::new(tokens::TokenCache::default()),
            queued: Arc::new(Notify::new()),
            written: Arc::new(tokio::sync::watch::Sender::new(0)),
            watcher: changes::Watcher::new(&url),
        })
    }

    /// Applies the pending migrations of this backend.
    pub async fn migrate(&self) -> Result<()> {
        let migrator = match self.backend {
            Backend::Sqlite => &SQLITE_MIGRATIONS,
            Backend::Postgres => &POSTGRES_MIGRATIONS,
        };
        migrator.run(&self.pool).await?;
        Ok(())
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool for writes and transactions.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The pool for single read-only queries outside transactions. What was
    /// committed through [`Store::pool`] is visible here.
    pub fn reader(&self) -> &AnyPool {
        &self.reader
    }

    /// Resolves when a task is queued through this store (or a clone of it).
    pub fn task_queued(&self) -> Notified<'_> {
        self.queued.notified()
    }

    /// Wakes the idle workers waiting in [`Store::task_queued`].
    pub fn notify_queued(&self) {
        self.queued.notify_waiters();
    }

    /// A receiver that sees a change whenever a status report or a task's
    /// end is committed, through this store (or a clone of it) or by
    /// another process on the same database (see [`changes`]).
    pub fn task_writes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.watch_other_processes();
        self.written.subscribe()
    }

    /// Tells the receivers of [`Store::task_writes`] that something was written.
    pub(crate) fn notify_written(&self) {
        self.written.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A write transaction. On SQLite it starts with `BEGIN IMMEDIATE`, which
    /// takes the database's write lock at once (waiting for other processes
    /// up to the busy timeout, then retried): a deferred transaction that
    /// read first and wrote later would fail outright when another process
    /// wrote in between, where no wait can help.
    pub async fn begin(&self) -> Result<Tx<'static>> {
        match self.backend {
            Backend::Sqlite => {
                self.retry(|| async { Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?) })
                    .await
            }
            Backend::Postgres => self.retry(|| async { Ok(self.pool.begin().await?) }).await,
        }
    }

    /// A cheap round trip, for readiness checks.
    pub async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    pub async fn close(&self) {
        self.reader.close().await;
        self.pool.close().await;
    }
}

/// Settings of the SQLite writer's connection (see [`sqlite_writer`]).
const SQLITE_WRITER_PRAGMAS: &str = "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL; \
     PRAGMA busy_timeout = 10000; PRAGMA synchronous = NORMAL;";

/// One connection made directly, set up as the writer's, and closed: a
/// database that cannot be reached, or a file that is not a database, fails
/// here at once, where a pool would retry the connection until its acquire
/// timeout.
async fn check_connection(options: &AnyConnectOptions, backend: Backend) -> Result<()> {
    let mut conn = sqlx::AnyConnection::connect_with(options).await?;
    if backend == Backend::Sqlite {
        conn.execute(SQLITE_WRITER_PRAGMAS).await?;
    }
    conn.close().await?;
    Ok(())
}

/// Read connections of a SQLite file.
const SQLITE_READERS: u32 = 4;

/// A PostgreSQL connection idle this long is checked with a round trip
/// before it is handed out. sqlx's default checks every connection at every
/// checkout, which doubled the round trips of a listing; a SQLite connection
/// lives in this process and is never checked.
const PING_IDLE: Duration = Duration::from_secs(10);

/// The SQLite writer: one connection, since SQLite has one writer and a
/// single connection avoids upgrade deadlocks between concurrent write
/// transactions. WAL lets the readers go on while it writes; with WAL,
/// `synchronous = NORMAL` syncs at checkpoints rather than at every commit
/// (a power loss may undo the last commits, never corrupt the file).
async fn sqlite_writer(options: AnyConnectOptions) -> Result<AnyPool> {
    Ok(AnyPoolOptions::new()
        .max_connections(1)
        .acquire_timeout(Duration::from_secs(30))
        .test_before_acquire(false)
        .after_connect(|conn, _| {
            Box::pin(async move {
                conn.execute(SQLITE_WRITER_PRAGMAS).await?;
                Ok(())
            })
        })
        .connect_with(options)
        .await?)
}

/// SQLite readers, opened on first use (after the writer has created the
/// file and switched it to WAL), refusing writes.
fn sqlite_readers(options: AnyConnectOptions) -> AnyPool {
    AnyPoolOptions::new()
        .max_connections(SQLITE_READERS)
        .acquire_timeout(Duration::from_secs(30))
        .test_before_acquire(false)
        .after_connect(|conn, _| {
            Box::pin(async move {
                conn.execute("PRAGMA busy_timeout = 10000; PRAGMA query_only = ON;")
                    .await?;
                Ok(())
            })
        })
        .connect_lazy_with(options)
}

/// A URL with its password replaced, for messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.find(':') {
                Some(c) => format!("{}{}:***{}", &url[..s + 3], &creds[..c], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// A new random id: 32 lowercase hex digits, as Murano's ids.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}
