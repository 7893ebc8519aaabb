//! Per-token request rates: a token bucket for each token (governor's
//! keyed limiter), checked after the token is verified. A token past its
//! rate gets 429 with `Retry-After`.

use crate::error::{ApiError, ErrorKind};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::hash::BuildHasher;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A sustained rate and the burst allowed above it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub per_second: NonZeroU32,
    pub burst: NonZeroU32,
}

impl Default for Rate {
    /// 200 requests a second, bursts of 400.
    fn default() -> Rate {
        Rate {
            per_second: NonZeroU32::new(200).unwrap_or(NonZeroU32::MIN),
            burst: NonZeroU32::new(400).unwrap_or(NonZeroU32::MIN),
        }
    }
}

/// How often (in checks) the limiter forgets tokens that are back to a full bucket.
const PRUNE_EVERY: u32 = 4096;

/// The limiters of every token seen, keyed by a keyed hash of the token
/// (the token itself is not kept).
#[derive(Clone)]
pub struct RateLimits {
    limiter: Arc<DefaultKeyedRateLimiter<u64>>,
    hasher: std::collections::hash_map::RandomState,
    checks: Arc<AtomicU32>,
}

impl RateLimits {
    pub fn new(rate: Rate) -> RateLimits {
        let quota = Quota::per_second(rate.per_second).allow_burst(rate.burst);
        RateLimits {
            limiter: Arc::new(RateLimiter::keyed(quota)),
            hasher: Default::default(),
            checks: Arc::new(AtomicU32::new(0)),
        }
    }

    /// Counts one request of `token`, or answers 429.
    pub fn check(&self, token: &str) -> Result<(), ApiError> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.limiter.retain_recent();
        }
        let key = self.hasher.hash_one(token);
        self.limiter.check_key(&key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            ApiError::new(
                axum::http::StatusCode::TOO_MANY_REQUESTS,
                ErrorKind::TooManyRequests,
                format!("this token is over its request rate; retry in {secs} s"),
            )
            .with_retry_after(secs.max(1))
        })
    }
}
