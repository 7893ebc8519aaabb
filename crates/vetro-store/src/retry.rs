//! Transient database errors and the retries that absorb them.
//!
//! Several processes may write one database (`vetro serve` and any number of
//! `vetro worker`). A write that meets another process's lock (SQLite's
//! `SQLITE_BUSY`, PostgreSQL's deadlock or lock timeout) or a transaction the
//! database aborted to keep it serializable is not a failure of the request:
//! run again a moment later it succeeds. [`Store::retry`] runs an operation
//! again on such errors, with growing, jittered pauses, for up to
//! [`RETRY_FOR`]; every other error is returned at once.

use crate::{Result, Store, StoreError};
use std::future::Future;
use std::time::{Duration, Instant};

/// How long an operation is retried before its transient error is returned.
pub const RETRY_FOR: Duration = Duration::from_secs(60);

/// The first pause; each next one doubles, up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(5);
const MAX_PAUSE: Duration = Duration::from_millis(500);

/// SQLite primary result codes: the database file is locked by another
/// connection, or a table is locked within a shared cache.
const SQLITE_BUSY: i64 = 5;
const SQLITE_LOCKED: i64 = 6;

/// PostgreSQL SQLSTATEs: serialization failure, deadlock detected, lock not available.
const PG_TRANSIENT: [&str; 3] = ["40001", "40P01", "55P03"];

impl StoreError {
    /// Whether running the same operation again may succeed: the database
    /// refused it for another writer's lock or for serializability, or no
    /// connection was free in time. Nothing was committed in any of these.
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Db(sqlx::Error::PoolTimedOut) => true,
            StoreError::Db(sqlx::Error::Database(e)) => {
                let Some(code) = e.code() else { return false };
                if PG_TRANSIENT.contains(&code.as_ref()) {
                    return true;
                }
                // SQLite reports extended codes (SQLITE_BUSY_SNAPSHOT is 517):
                // the low byte is the primary code.
                code.parse::<i64>()
                    .is_ok_and(|c| matches!(c & 0xff, SQLITE_BUSY | SQLITE_LOCKED))
            }
            _ => false,
        }
    }
}

/// A pause of about `base`, jittered so that processes that collided do not
/// collide again in step.
fn jittered(base: Duration) -> Duration {
    let mut b = [0u8; 2];
    let spread = if getrandom::getrandom(&mut b).is_ok() {
        u64::from(u16::from_le_bytes(b)) % 1000
    } else {
        500
    };
    // Between half and one and a half times `base`.
    base / 2 + base * u32::try_from(spread).unwrap_or(500) / 1000
}

impl Store {
    /// Runs `op` until it succeeds, fails with a non-transient error, or has
    /// met transient errors for [`RETRY_FOR`]. `op` must do all of its
    /// writes in one transaction (or one statement), so that a failed try
    /// left nothing behind.
    pub async fn retry<T, F, Fut>(&self, mut op: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let started = Instant::now();
        let mut pause = FIRST_PAUSE;
        loop {
            match op().await {
                Err(e) if e.is_transient() && started.elapsed() < RETRY_FOR => {
                    tokio::time::sleep(jittered(pause)).await;
                    pause = (pause * 2).min(MAX_PAUSE);
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_stay_within_half_and_one_and_a_half_times_the_base() {
        for _ in 0..100 {
            let p = jittered(Duration::from_millis(100));
            assert!(p >= Duration::from_millis(50) && p <= Duration::from_millis(150));
        }
    }

    #[test]
    fn a_timed_out_pool_is_transient_and_a_missing_row_is_not() {
        assert!(StoreError::Db(sqlx::Error::PoolTimedOut).is_transient());
        assert!(!StoreError::Db(sqlx::Error::RowNotFound).is_transient());
        assert!(!StoreError::NotFound("x".into()).is_transient());
    }
}
