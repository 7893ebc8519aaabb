//! API tokens. Only a SHA-256 hash of a token is stored; the token itself is
//! shown once, when it is created.
//!
//! Every API request authenticates, so verified tokens are kept in memory for
//! [`TOKEN_CACHE_TTL`] (keyed by the hash, at most [`TOKEN_CACHE_SIZE`] of
//! them): a token removed from the database stops working within that time.
//! Unknown tokens are never cached.

use crate::{row, time, Result, Store, StoreError};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a verified token is trusted without asking the database again.
pub const TOKEN_CACHE_TTL: Duration = Duration::from_secs(5);
/// Most tokens kept verified at once.
pub const TOKEN_CACHE_SIZE: usize = 1024;

/// Who a token speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    pub project_id: String,
    pub user_id: String,
    pub is_admin: bool,
}

type Digest32 = [u8; 32];

fn digest(token: &str) -> Digest32 {
    Sha256::digest(token.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

fn hash(token: &str) -> String {
    hex(&digest(token))
}

/// Principals of recently verified tokens, by token hash.
#[derive(Debug, Default)]
pub struct TokenCache {
    entries: Mutex<HashMap<Digest32, (Principal, Instant)>>,
}

impl TokenCache {
    fn get(&self, key: &Digest32, now: Instant) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.get(key) {
            Some((p, at)) if now.duration_since(*at) < TOKEN_CACHE_TTL => Some(p.clone()),
            _ => None,
        }
    }

    fn put(&self, key: Digest32, p: Principal, now: Instant) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= TOKEN_CACHE_SIZE && !entries.contains_key(&key) {
            entries.retain(|_, (_, at)| now.duration_since(*at) < TOKEN_CACHE_TTL);
            if entries.len() >= TOKEN_CACHE_SIZE {
                // All fresh: make room by forgetting one; it is verified
                // again on its next use.
                if let Some(k) = entries.keys().next().copied() {
                    entries.remove(&k);
                }
            }
        }
        entries.insert(key, (p, now));
    }
}

fn random_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| StoreError::Invalid(format!("no randomness available: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Store {
    /// Creates a token for `who` and returns it (the only time it is visible).
    pub async fn create_token(&self, who: &Principal) -> Result<String> {
        for (what, v) in [("project", &who.project_id), ("user", &who.user_id)] {
            if v.is_empty() || v.len() > 64 {
                return Err(StoreError::Invalid(format!(
                    "the {what} id must have 1 to 64 characters"
                )));
            }
        }
        let token = random_token()?;
        sqlx::query(
            "INSERT INTO tokens (token_hash, project_id, user_id, is_admin, created) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(hash(&token))
        .bind(&who.project_id)
        .bind(&who.user_id)
        .bind(who.is_admin as i64)
        .bind(time::now())
        .execute(self.pool())
        .await?;
        Ok(token)
    }

    /// The principal of `token`, or `None` when the token is unknown. A
    /// token verified less than [`TOKEN_CACHE_TTL`] ago is not looked up again.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Principal>> {
        let key = digest(token);
        if let Some(p) = self.tokens.get(&key, Instant::now()) {
            return Ok(Some(p));
        }
        let row =
            sqlx::query("SELECT project_id, user_id, is_admin FROM tokens WHERE token_hash = $1")
                .bind(hex(&key))
                .fetch_optional(self.reader())
                .await?;
        let Some(r) = row else {
            return Ok(None);
        };
        let p = Principal {
            project_id: row::text(&r, "project_id")?,
            user_id: row::text(&r, "user_id")?,
            is_admin: row::flag(&r, "is_admin")?,
        };
        self.tokens.put(key, p.clone(), Instant::now());
        Ok(Some(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(n: usize) -> Principal {
        Principal {
            project_id: format!("p{n}"),
            user_id: "u".into(),
            is_admin: false,
        }
    }

    #[test]
    fn hashes_are_lowercase_hex_sha256() {
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn entries_expire_after_the_ttl() {
        let cache = TokenCache::default();
        let t0 = Instant::now();
        cache.put(digest("a"), who(1), t0);
        assert_eq!(cache.get(&digest("a"), t0), Some(who(1)));
        assert_eq!(cache.get(&digest("b"), t0), None);
        let later = t0 + TOKEN_CACHE_TTL;
        assert_eq!(cache.get(&digest("a"), later), None);
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = TokenCache::default();
        let t0 = Instant::now();
        for n in 0..TOKEN_CACHE_SIZE + 10 {
            cache.put(digest(&n.to_string()), who(n), t0);
        }
        assert_eq!(cache.entries.lock().unwrap().len(), TOKEN_CACHE_SIZE);
        let last = TOKEN_CACHE_SIZE + 9;
        assert_eq!(cache.get(&digest(&last.to_string()), t0), Some(who(last)));
        // Expired entries make room first.
        let later = t0 + TOKEN_CACHE_TTL;
        cache.put(digest("new"), who(0), later);
        assert_eq!(cache.entries.lock().unwrap().len(), 1);
    }
}
