//! Checking the tokens a service receives against Keystone, as OpenStack's
//! `keystonemiddleware` does: the service authenticates as itself and asks
//! `GET /v3/auth/tokens` about each caller's token (`X-Subject-Token`).
//!
//! Answers are cached by the SHA-256 of the token, at most
//! [`Settings::cache_size`] of them, each for [`Settings::cache_ttl`] or
//! until the token's own expiry, whichever comes first. That is the bound on
//! revocation: a token revoked in Keystone is still accepted by this process
//! until its cache entry lapses (at most `cache_ttl` after it was last
//! checked), then refused. Refused tokens are not cached.
//!
//! Besides: signing in with a password (the dashboard) and creating the
//! trust a deployment acts through ([`Validator::create_trust`]).

use crate::clouds::Credentials;
use crate::clouds::Named;
use crate::keystone::{identity_root, issued_token, named, Session};
use crate::rest::{error_text, exchange, Retry};
use reqwest::StatusCode;
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// How long, and how many, checked tokens are remembered.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Longest time a checked token is trusted without asking Keystone again
    /// (keystonemiddleware's `token_cache_time`, 300 s by default there too).
    pub cache_ttl: Duration,
    /// Most tokens remembered at once; beyond it the least used are dropped.
    pub cache_size: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            cache_ttl: Duration::from_secs(300),
            cache_size: 10_000,
        }
    }
}

/// Who a valid token speaks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub user_id: String,
    pub user_name: String,
    pub project_id: String,
    pub project_name: String,
    /// Role names in the project (implied roles included, as Keystone lists them).
    pub roles: Vec<String>,
    pub expires_at: Option<jiff::Timestamp>,
}

impl Identity {
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }

    /// From a v3 token body (`{"token": {...}}`); a token not scoped to a
    /// project is refused with the reason.
    pub fn from_token_body(body: &Json) -> Result<Identity, String> {
        let t = body.get("token").ok_or("Keystone's answer has no token")?;
        let text = |p: &str| {
            t.pointer(p)
                .and_then(Json::as_str)
                .map(str::to_string)
                .unwrap_or_default()
        };
        let project_id = text("/project/id");
        if project_id.is_empty() {
            return Err("the token is not scoped to a project".into());
        }
        let roles = t
            .get("roles")
            .and_then(Json::as_array)
            .map(|rs| {
                rs.iter()
                    .filter_map(|r| r.get("name").and_then(Json::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        Ok(Identity {
            user_id: text("/user/id"),
            user_name: text("/user/name"),
            project_id,
            project_name: text("/project/name"),
            roles,
            expires_at: t
                .get("expires_at")
                .and_then(Json::as_str)
                .and_then(|e| e.parse().ok()),
        })
    }

    /// How long the token is still valid (`None`: Keystone gave no expiry).
    pub fn remaining(&self) -> Option<Duration> {
        self.expires_at.map(|e| {
            let left = e.duration_since(jiff::Timestamp::now());
            Duration::try_from(left).unwrap_or(Duration::ZERO)
        })
    }

    fn expired(&self) -> bool {
        self.expires_at.is_some_and(|e| e <= jiff::Timestamp::now())
    }
}

/// What Keystone says of a token.
#[derive(Clone, Debug)]
pub enum Verdict {
    Valid(Arc<Identity>),
    /// Unknown, expired, revoked or unscoped: the reason, for the 401.
    Refused(String),
}

/// The domain OpenStack clients assume when none is given.
pub const DEFAULT_DOMAIN: &str = "Default";

/// A user or project by `name` in the domain named `domain` (the
/// [`DEFAULT_DOMAIN`] when empty), as `--os-user-domain-name` and
/// `--os-project-domain-name` name them.
pub fn in_domain(name: &str, domain: &str) -> Named {
    let domain = domain.trim();
    Named {
        name: Some(name.to_string()),
        domain_name: Some(
            if domain.is_empty() {
                DEFAULT_DOMAIN
            } else {
                domain
            }
            .to_string(),
        ),
        ..Named::default()
    }
}

/// A signed-in user: their new token and who it speaks for.
pub struct SignedIn {
    pub token: String,
    pub identity: Identity,
}

/// Checks tokens with the service's own Keystone session.
pub struct Validator {
    http: reqwest::Client,
    root: String,
    session: tokio::sync::Mutex<Session>,
    cache: moka::sync::Cache<[u8; 32], Arc<Identity>>,
    retry: Retry,
}

fn key(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Validator {
    /// `service`: the service user's credentials (scoped to its project).
    pub fn new(service: Credentials, settings: &Settings) -> Result<Validator, String> {
        // Each answer is awaited by a request: a short bound.
        let http = crate::http_client(Duration::from_secs(30))?;
        let root = identity_root(&service.auth_url);
        let cache = moka::sync::Cache::builder()
            .max_capacity(settings.cache_size)
            .time_to_live(settings.cache_ttl)
            .build();
        // A request waits for this: fewer, shorter tries than a deployment's.
        let retry = Retry {
            attempts: 3,
            first: Duration::from_millis(100),
            max: Duration::from_secs(1),
        };
        let mut session = Session::new(service, http.clone());
        session.retry = retry.clone();
        Ok(Validator {
            http,
            root,
            session: tokio::sync::Mutex::new(session),
            cache,
            retry,
        })
    }

    /// Keystone's v3 root, as callers are told in `WWW-Authenticate`.
    pub fn keystone_url(&self) -> &str {
        &self.root
    }

    /// The service's credentials (the trustee of every trust it creates).
    pub async fn service_credentials(&self) -> Credentials {
        self.session.lock().await.credentials().clone()
    }

    /// Authenticates the service now: a wrong configuration shows at start.
    pub async fn check_service(&self) -> Result<String, String> {
        self.session.lock().await.user_id().await
    }

    /// What Keystone says of `token` (from the cache while it is fresh).
    /// `Err` when Keystone cannot be asked (unreachable, 5xx, or the
    /// service's own credentials refused).
    pub async fn validate(&self, token: &str) -> Result<Verdict, String> {
        let k = key(token);
        if let Some(id) = self.cache.get(&k) {
            if !id.expired() {
                return Ok(Verdict::Valid(id));
            }
            self.cache.invalidate(&k);
        }
        let url = format!("{}/auth/tokens", self.root);
        let mut renewed = false;
        loop {
            let service = self.session.lock().await.token().await?;
            let build = || {
                self.http
                    .get(&url)
                    .header("X-Auth-Token", &service)
                    .header("X-Subject-Token", token)
            };
            let reply = exchange(&build, &self.retry, "Keystone", &url).await?;
            match reply.status {
                s if s.is_success() => {
                    let body: Json = serde_json::from_str(&reply.text)
                        .map_err(|e| format!("Keystone's token is not JSON: {e}"))?;
                    return Ok(match Identity::from_token_body(&body) {
                        Ok(id) if id.expired() => Verdict::Refused("the token has expired".into()),
                        Ok(id) => {
                            let id = Arc::new(id);
                            self.cache.insert(k, id.clone());
                            Verdict::Valid(id)
                        }
                        Err(why) => Verdict::Refused(why),
                    });
                }
                StatusCode::NOT_FOUND => {
                    return Ok(Verdict::Refused(
                        "the token is not valid (unknown, expired or revoked)".into(),
                    ))
                }
                // The service's own token lapsed: once more with a new one.
                StatusCode::UNAUTHORIZED if !renewed => {
                    self.session.lock().await.invalidate();
                    renewed = true;
                }
                s => {
                    return Err(format!(
                        "Keystone refused to check a token for the service: {}",
                        error_text(s, &reply.text)
                    ))
                }
            }
        }
    }

    /// Signs `user` in with `password`, scoped to `project`, each named in
    /// its domain (see [`in_domain`]). `Ok(Err(message))` when Keystone
    /// refuses them.
    pub async fn sign_in(
        &self,
        user: &Named,
        password: &str,
        project: &Named,
    ) -> Result<Result<SignedIn, String>, String> {
        let url = format!("{}/auth/tokens", self.root);
        let mut who = named(user);
        who["password"] = json!(password);
        let body = json!({"auth": {
            "identity": {"methods": ["password"], "password": {"user": who}},
            "scope": {"project": named(project)}}});
        let build = || self.http.post(&url).json(&body);
        let reply = exchange(&build, &self.retry, "Keystone", &url).await?;
        if !reply.status.is_success() {
            return Ok(Err(match reply.status {
                StatusCode::UNAUTHORIZED => {
                    "The user name, password or project is not right.".into()
                }
                s => format!(
                    "Keystone refused the sign-in: {}",
                    error_text(s, &reply.text)
                ),
            }));
        }
        let (token, body) = issued_token(&reply)?;
        Ok(Identity::from_token_body(&body).map(|identity| SignedIn { token, identity }))
    }

    /// Creates a trust from the caller (`user_token`, who is `who`) to the
    /// service user, in the caller's project with the caller's roles,
    /// impersonating the caller (as Murano's engine did), which Heat may
    /// redelegate once, and expiring after `lifetime`. Returns the trust's id.
    pub async fn create_trust(
        &self,
        user_token: &str,
        who: &Identity,
        lifetime: Duration,
    ) -> Result<String, String> {
        let trustee = self.session.lock().await.user_id().await?;
        let expires = jiff::SignedDuration::try_from(lifetime)
            .ok()
            .and_then(|d| jiff::Timestamp::now().checked_add(d).ok())
            .map(|t| t.round(jiff::Unit::Second).unwrap_or(t).to_string());
        let roles: Vec<Json> = who.roles.iter().map(|r| json!({"name": r})).collect();
        let body = json!({"trust": {
            "trustor_user_id": who.user_id,
            "trustee_user_id": trustee,
            "project_id": who.project_id,
            "roles": roles,
            "impersonation": true,
            // Heat makes a trust of its own for each stack from the token it
            // is given (its default deferred_auth_method); from a
            // trust-scoped token that is a redelegation, one hop.
            "allow_redelegation": true,
            "redelegation_count": 1,
            "expires_at": expires,
        }});
        let url = format!("{}/OS-TRUST/trusts", self.root);
        let build = || {
            self.http
                .post(&url)
                .header("X-Auth-Token", user_token)
                .json(&body)
        };
        let reply = exchange(&build, &self.retry, "Keystone", &url).await?;
        if !reply.status.is_success() {
            return Err(format!(
                "Keystone refused to create a trust for user {} in project {}: {}",
                who.user_id,
                who.project_id,
                error_text(reply.status, &reply.text)
            ));
        }
        let j: Json = serde_json::from_str(&reply.text)
            .map_err(|e| format!("Keystone's trust is not JSON: {e}"))?;
        j.pointer("/trust/id")
            .and_then(Json::as_str)
            .map(str::to_string)
            .ok_or_else(|| "Keystone's trust has no id".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_come_from_v3_token_bodies() {
        let body = json!({"token": {"user": {"id": "u1", "name": "demo"},
            "project": {"id": "p1", "name": "demo"}, "expires_at": "2999-01-01T00:00:00.000000Z",
            "roles": [{"id": "r1", "name": "member"}, {"id": "r2", "name": "reader"}]}});
        let id = Identity::from_token_body(&body).unwrap();
        assert_eq!((id.user_id.as_str(), id.project_id.as_str()), ("u1", "p1"));
        assert!(id.has_role("member") && !id.has_role("admin"));
        assert!(!id.expired());
        let unscoped = json!({"token": {"user": {"id": "u1"}, "roles": []}});
        assert!(Identity::from_token_body(&unscoped)
            .unwrap_err()
            .contains("not scoped"));
        let old = json!({"token": {"user": {"id": "u"}, "project": {"id": "p"},
            "expires_at": "2000-01-01T00:00:00Z"}});
        assert!(Identity::from_token_body(&old).unwrap().expired());
    }
}
