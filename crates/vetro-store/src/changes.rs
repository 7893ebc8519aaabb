//! Learning of status reports and task endings written by other processes
//! (workers started with `vetro worker`), so live views wake at once
//! instead of polling the tables.
//!
//! On PostgreSQL, triggers on `status_reports` and `tasks` send a `NOTIFY`
//! on [`CHANNEL`] as the writing transaction commits, and one `LISTEN`ing
//! connection per store passes it on. On a SQLite file, one connection reads
//! `PRAGMA data_version` (a counter SQLite bumps when another connection
//! commits; no table is read) every [`SQLITE_POLL`] while someone watches.
//! Both feed [`Store::task_writes`], which this process's own writes feed
//! directly.

use crate::{Backend, Store};
use sqlx::{AnyConnection, Connection};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::watch;

/// The PostgreSQL notification channel of task writes (see the migration
/// `0005_task_write_notify.sql`).
pub const CHANNEL: &str = "vetro_task_writes";

/// How often a SQLite file's change counter is read while a live view watches.
pub const SQLITE_POLL: Duration = Duration::from_millis(20);

/// How long to wait before connecting again after the watching connection failed.
const RETRY: Duration = Duration::from_secs(1);

/// Where the watcher connects and whether it runs.
pub(crate) struct Watcher {
    url: String,
    started: AtomicBool,
}

impl Watcher {
    pub(crate) fn new(url: &str) -> Arc<Watcher> {
        Arc::new(Watcher {
            url: url.to_string(),
            started: AtomicBool::new(false),
        })
    }
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("url", &crate::redact_url(&self.url))
            .finish()
    }
}

/// Tells the receivers; `false` once every store is gone.
fn bump(sender: &Weak<watch::Sender<u64>>) -> bool {
    match sender.upgrade() {
        Some(s) => {
            s.send_modify(|n| *n = n.wrapping_add(1));
            true
        }
        None => false,
    }
}

impl Store {
    /// Starts, once per store (and its clones), passing on the writes of
    /// other processes to [`Store::task_writes`]. Needs a Tokio runtime;
    /// an in-memory SQLite database has no other process.
    pub(crate) fn watch_other_processes(&self) {
        let in_memory =
            self.watcher.url.contains(":memory:") || self.watcher.url.contains("mode=memory");
        if in_memory || self.watcher.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            self.watcher.started.store(false, Ordering::SeqCst);
            return;
        };
        let url = self.watcher.url.clone();
        let sender = Arc::downgrade(&self.written);
        match self.backend {
            Backend::Postgres => rt.spawn(listen_postgres(url, sender)),
            Backend::Sqlite => rt.spawn(poll_sqlite(url, sender)),
        };
    }
}

async fn listen_postgres(url: String, sender: Weak<watch::Sender<u64>>) {
    use sqlx::postgres::PgListener;
    let mut warned = false;
    loop {
        let listener = async {
            let mut l = PgListener::connect(&url).await?;
            l.listen(CHANNEL).await?;
            Ok::<_, sqlx::Error>(l)
        };
        let mut l = match listener.await {
            Ok(l) => l,
            Err(e) => {
                // The store has no logger of its own; said once, not every retry.
                if !std::mem::replace(&mut warned, true) {
                    eprintln!("warning: cannot listen for task writes of other processes: {e}");
                }
                tokio::time::sleep(RETRY).await;
                if sender.strong_count() == 0 {
                    return;
                }
                continue;
            }
        };
        // Whatever was written while not listening: let the views look.
        if !bump(&sender) {
            return;
        }
        loop {
            match tokio::time::timeout(RETRY, l.try_recv()).await {
                Ok(Ok(Some(_))) if !bump(&sender) => return,
                Ok(Ok(Some(_))) => {}
                // The connection was lost: connect again.
                Ok(Ok(None)) | Ok(Err(_)) => break,
                Err(_) if sender.strong_count() == 0 => return,
                Err(_) => {}
            }
        }
    }
}

async fn poll_sqlite(url: String, sender: Weak<watch::Sender<u64>>) {
    let mut conn: Option<AnyConnection> = None;
    let mut last: Option<i64> = None;
    loop {
        tokio::time::sleep(SQLITE_POLL).await;
        let Some(s) = sender.upgrade() else { return };
        if s.receiver_count() == 0 {
            last = None;
            continue;
        }
        drop(s);
        if conn.is_none() {
            conn = AnyConnection::connect(&url).await.ok();
        }
        let Some(c) = conn.as_mut() else {
            tokio::time::sleep(RETRY).await;
            continue;
        };
        match sqlx::query_scalar::<_, i64>("PRAGMA data_version")
            .fetch_one(c)
            .await
        {
            Ok(v) => {
                if last.is_some_and(|l| l != v) && !bump(&sender) {
                    return;
                }
                last = Some(v);
            }
            Err(_) => conn = None,
        }
    }
}
