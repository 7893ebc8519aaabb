//! API tokens. Only a SHA-256 hash of a token is stored; the token itself is
//! shown once, when it is created.
//!
//! A token may carry an expiry time, after which it is refused; a token is
//! revoked by deleting its row. Tokens are named in listings by their
//! [`TokenInfo::id`], the first hex digits of the hash, which tells nothing
//! about the token itself.
//!
//! Every API request authenticates, so verified tokens are kept in memory for
//! [`TOKEN_CACHE_TTL`] (keyed by the hash, at most [`TOKEN_CACHE_SIZE`] of
//! them): a token revoked in the database, by this process or another, stops
//! working within that time. Unknown tokens are never cached.

use crate::{row, time, Result, Store, StoreError};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a verified token is trusted without asking the database again:
/// short enough that a revocation is in force everywhere within a second.
pub const TOKEN_CACHE_TTL: Duration = Duration::from_millis(500);
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

pub(crate) fn hash(token: &str) -> String {
    hex(&digest(token))
}

/// A verified token: who it speaks for and until when (store time text).
type Verified = (Principal, Option<String>);

/// Principals of recently verified tokens, by token hash.
#[derive(Debug, Default)]
pub struct TokenCache {
    entries: Mutex<HashMap<Digest32, (Verified, Instant)>>,
}

impl TokenCache {
    fn get(&self, key: &Digest32, now: Instant) -> Option<Verified> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        match entries.get(key) {
            Some((p, at)) if now.duration_since(*at) < TOKEN_CACHE_TTL => Some(p.clone()),
            _ => None,
        }
    }

    fn put(&self, key: Digest32, p: Verified, now: Instant) {
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

/// Length of a token's id: the first hex digits of its hash.
pub const TOKEN_ID_LEN: usize = 12;

/// A stored token as `vetro token list` shows it (never the token itself).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    /// The first [`TOKEN_ID_LEN`] hex digits of the token's hash.
    pub id: String,
    pub principal: Principal,
    pub created: String,
    pub expires: Option<String>,
}

/// Whether a token expiring at `expires` is still good at `now` (both store time text).
fn unexpired(expires: Option<&str>, now: &str) -> bool {
    expires.is_none_or(|e| now < e)
}

/// The expiry time of a token: a duration from now (`30d`, `12h`,
/// `90 minutes`, as jiff's friendly format reads it) or a time
/// (`2027-01-31T00:00:00Z`, or a date, meaning its midnight UTC).
pub fn parse_expiry(text: &str, now: jiff::Timestamp) -> Result<jiff::Timestamp> {
    let text = text.trim();
    let bad = || {
        StoreError::Invalid(format!(
            "'{text}' is neither a duration (30d, 12h, 90m) nor a UTC time (2027-01-31T00:00:00Z or 2027-01-31)"
        ))
    };
    if let Ok(span) = text.parse::<jiff::Span>() {
        if span.is_negative() || span.is_zero() {
            return Err(StoreError::Invalid(format!(
                "the expiry '{text}' must be a positive duration"
            )));
        }
        return now
            .to_zoned(jiff::tz::TimeZone::UTC)
            .checked_add(span)
            .map(|z| z.timestamp())
            .map_err(|_| bad());
    }
    let at = match text.parse::<jiff::Timestamp>() {
        Ok(t) => t,
        Err(_) => text
            .parse::<jiff::civil::Date>()
            .map_err(|_| bad())?
            .to_zoned(jiff::tz::TimeZone::UTC)
            .map_err(|_| bad())?
            .timestamp(),
    };
    if at <= now {
        return Err(StoreError::Invalid(format!(
            "the expiry time '{text}' is in the past"
        )));
    }
    Ok(at)
}

/// [`parse_expiry`] from the current time.
pub fn expiry_from_now(text: &str) -> Result<jiff::Timestamp> {
    parse_expiry(text, jiff::Timestamp::now())
}

impl Store {
    /// Creates a token for `who` and returns it (the only time it is visible).
    pub async fn create_token(&self, who: &Principal) -> Result<String> {
        self.create_token_until(who, None).await
    }

    /// Creates a token for `who` that is refused from `expires` on.
    pub async fn create_token_until(
        &self,
        who: &Principal,
        expires: Option<jiff::Timestamp>,
    ) -> Result<String> {
        for (what, v) in [("project", &who.project_id), ("user", &who.user_id)] {
            if v.is_empty() || v.len() > 64 {
                return Err(StoreError::Invalid(format!(
                    "the {what} id must have 1 to 64 characters"
                )));
            }
        }
        let token = random_token()?;
        sqlx::query(
            "INSERT INTO tokens (token_hash, project_id, user_id, is_admin, created, expires) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(hash(&token))
        .bind(&who.project_id)
        .bind(&who.user_id)
        .bind(who.is_admin as i64)
        .bind(time::now())
        .bind(expires.map(time::format))
        .execute(self.pool())
        .await?;
        Ok(token)
    }

    /// The principal of `token`, or `None` when the token is unknown or
    /// expired. A token verified less than [`TOKEN_CACHE_TTL`] ago is not
    /// looked up again.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Principal>> {
        let key = digest(token);
        let now = time::now();
        if let Some((p, expires)) = self.tokens.get(&key, Instant::now()) {
            return Ok(unexpired(expires.as_deref(), &now).then_some(p));
        }
        let row = sqlx::query(
            "SELECT project_id, user_id, is_admin, expires FROM tokens WHERE token_hash = $1",
        )
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
        let expires = row::opt_text(&r, "expires")?;
        if !unexpired(expires.as_deref(), &now) {
            return Ok(None);
        }
        self.tokens.put(key, (p.clone(), expires), Instant::now());
        Ok(Some(p))
    }

    /// The stored tokens (of one project, or all), oldest first.
    pub async fn list_tokens(&self, project_id: Option<&str>) -> Result<Vec<TokenInfo>> {
        let select =
            "SELECT token_hash, project_id, user_id, is_admin, created, expires FROM tokens";
        let order = "ORDER BY created, token_hash";
        let rows = match project_id {
            Some(p) => {
                sqlx::query(&format!("{select} WHERE project_id = $1 {order}"))
                    .bind(p)
                    .fetch_all(self.reader())
                    .await?
            }
            None => {
                sqlx::query(&format!("{select} {order}"))
                    .fetch_all(self.reader())
                    .await?
            }
        };
        rows.iter()
            .map(|r| {
                let hash = row::text(r, "token_hash")?;
                Ok(TokenInfo {
                    id: hash.chars().take(TOKEN_ID_LEN).collect(),
                    principal: Principal {
                        project_id: row::text(r, "project_id")?,
                        user_id: row::text(r, "user_id")?,
                        is_admin: row::flag(r, "is_admin")?,
                    },
                    created: row::text(r, "created")?,
                    expires: row::opt_text(r, "expires")?,
                })
            })
            .collect()
    }

    /// Revokes the token named by its id (as listed) or by the token
    /// itself. Every process refuses it within [`TOKEN_CACHE_TTL`].
    pub async fn revoke_token(&self, id_or_token: &str) -> Result<TokenInfo> {
        let given = id_or_token.trim();
        let id = if given.len() == 64 {
            hash(given)[..TOKEN_ID_LEN].to_string()
        } else if given.len() == TOKEN_ID_LEN && given.bytes().all(|b| b.is_ascii_hexdigit()) {
            given.to_ascii_lowercase()
        } else {
            return Err(StoreError::Invalid(format!(
                "name the token by its {TOKEN_ID_LEN}-digit id (vetro token list) or give the token itself"
            )));
        };
        let full = (given.len() == 64).then(|| hash(given));
        let found: Vec<TokenInfo> = self
            .list_tokens(None)
            .await?
            .into_iter()
            .filter(|t| t.id == id)
            .collect();
        let info = match found.as_slice() {
            [one] => one.clone(),
            [] => return Err(StoreError::NotFound(format!("token {id}"))),
            _ => {
                return Err(StoreError::Invalid(format!(
                    "several tokens have the id {id}; give the token itself"
                )))
            }
        };
        let res = match &full {
            Some(h) => {
                sqlx::query("DELETE FROM tokens WHERE token_hash = $1")
                    .bind(h)
                    .execute(self.pool())
                    .await?
            }
            None => {
                // The id is hex digits only: nothing in it is a LIKE wildcard.
                sqlx::query("DELETE FROM tokens WHERE token_hash LIKE $1")
                    .bind(format!("{id}%"))
                    .execute(self.pool())
                    .await?
            }
        };
        if res.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("token {id}")));
        }
        Ok(info)
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
        cache.put(digest("a"), (who(1), None), t0);
        assert_eq!(cache.get(&digest("a"), t0), Some((who(1), None)));
        assert_eq!(cache.get(&digest("b"), t0), None);
        let later = t0 + TOKEN_CACHE_TTL;
        assert_eq!(cache.get(&digest("a"), later), None);
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = TokenCache::default();
        let t0 = Instant::now();
        for n in 0..TOKEN_CACHE_SIZE + 10 {
            cache.put(digest(&n.to_string()), (who(n), None), t0);
        }
        assert_eq!(cache.entries.lock().unwrap().len(), TOKEN_CACHE_SIZE);
        let last = TOKEN_CACHE_SIZE + 9;
        assert_eq!(
            cache.get(&digest(&last.to_string()), t0),
            Some((who(last), None))
        );
        // Expired entries make room first.
        let later = t0 + TOKEN_CACHE_TTL;
        cache.put(digest("new"), (who(0), None), later);
        assert_eq!(cache.entries.lock().unwrap().len(), 1);
    }

    #[test]
    fn expiry_is_a_duration_or_a_future_time() {
        let now: jiff::Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let at = |s: &str| parse_expiry(s, now).map(|t| t.to_string());
        assert_eq!(at("30d").unwrap(), "2026-01-31T00:00:00Z");
        assert_eq!(at("12h").unwrap(), "2026-01-01T12:00:00Z");
        assert_eq!(at("90 minutes").unwrap(), "2026-01-01T01:30:00Z");
        assert_eq!(at("2026-02-01").unwrap(), "2026-02-01T00:00:00Z");
        assert_eq!(at("2026-03-01T10:00:00Z").unwrap(), "2026-03-01T10:00:00Z");
        for bad in [
            "",
            "soon",
            "-1h",
            "0s",
            "2025-12-31",
            "2025-06-01T00:00:00Z",
        ] {
            assert!(at(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn expired_means_at_or_after_the_time() {
        assert!(unexpired(None, "2026-01-01T00:00:00.000000"));
        assert!(unexpired(
            Some("2026-01-01T00:00:00.000001"),
            "2026-01-01T00:00:00.000000"
        ));
        assert!(!unexpired(
            Some("2026-01-01T00:00:00.000000"),
            "2026-01-01T00:00:00.000000"
        ));
    }
}
