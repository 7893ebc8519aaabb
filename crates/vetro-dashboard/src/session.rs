//! Sign-in sessions: a random id in an `HttpOnly`, `SameSite=Strict`,
//! expiring cookie names a session kept in the service's database (so it
//! survives a restart and every process of the service knows it); the API
//! token stays on the server, stored as its hash and checked again on every
//! request. Every form carries the session's CSRF token, checked on every
//! POST. The one-time message shown on the next page stays in this
//! process's memory.

use crate::error::PageError;
use crate::Dashboard;
use axum::extract::{Form, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use vetro_server::access::Access;
use vetro_server::auth::Ctx;
use vetro_server::error::ApiError;
use vetro_store::tokens::Principal;
use vetro_store::web_sessions::WebCredential;
use vetro_store::Store;

/// The name of the session cookie.
pub const SESSION_COOKIE: &str = "vetro_session";

/// How a session proves who it is on each request.
pub(crate) enum Credential {
    /// An API token, checked again on every request (so revoking it ends the session).
    Token(String),
    /// A Keystone token (from a password or a pasted token), kept with the
    /// session and checked with Keystone on every request (cached as the
    /// API's checks are); the session ends when the token expires.
    Keystone {
        token: String,
        principal: Principal,
        expires_in: Option<Duration>,
    },
}

/// The session value that keeps a Keystone session's token.
const KEYSTONE_TOKEN: &str = "keystone_token";

/// A one-time message shown on the next page.
#[derive(Clone, Debug)]
pub struct Flash {
    pub ok: bool,
    pub text: String,
}

/// How long sessions last, and the messages waiting for their next page.
pub(crate) struct Sessions {
    lifetime: Duration,
    flashes: Mutex<HashMap<String, Flash>>,
}

impl Sessions {
    pub fn new(lifetime: Duration) -> Sessions {
        Sessions {
            lifetime,
            flashes: Mutex::new(HashMap::new()),
        }
    }

    /// A new session in `store` and how long it lasts; expired ones are
    /// dropped on the way.
    pub(crate) async fn create(
        &self,
        store: &Store,
        credential: Credential,
    ) -> Result<(String, Duration), ApiError> {
        let id = random_token();
        let (web, lifetime, keystone_token) = match &credential {
            Credential::Token(t) => (WebCredential::Token(t), self.lifetime, None),
            Credential::Keystone {
                token,
                principal,
                expires_in,
            } => (
                WebCredential::Principal(principal),
                expires_in.map_or(self.lifetime, |e| e.min(self.lifetime)),
                Some(token),
            ),
        };
        store
            .create_web_session(&id, &random_token(), web, lifetime)
            .await?;
        if let Some(t) = keystone_token {
            let v = serde_json::Value::from(t.as_str());
            store
                .set_web_session_value(&id, KEYSTONE_TOKEN, Some(&v))
                .await?;
        }
        Ok((id, lifetime))
    }

    pub async fn remove(&self, store: &Store, id: &str) -> Result<(), ApiError> {
        lock(&self.flashes).remove(id);
        Ok(store.delete_web_session(id).await?)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// 244 random bits as 64 hex digits (two version-4 UUIDs from the OS's generator).
pub fn random_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Compares secrets in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// A `Set-Cookie` value for an `HttpOnly`, `SameSite=Strict` cookie
/// (`max_age` 0 deletes it).
pub fn set_cookie(name: &str, value: &str, max_age: Duration) -> String {
    format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        max_age.as_secs()
    )
}

/// The signed-in person.
#[derive(Clone)]
pub struct User {
    id: String,
    csrf: String,
    dash: Dashboard,
    /// The caller as the API's project routes see it (see `api::ctx_for` for the others).
    pub ctx: Ctx,
}

impl User {
    /// The signed-in person of these request headers, if any.
    pub async fn lookup(headers: &HeaderMap, dash: &Dashboard) -> Result<Option<User>, PageError> {
        let Some(id) = cookie(headers, SESSION_COOKIE) else {
            return Ok(None);
        };
        let Some(s) = dash
            .app
            .store
            .web_session(&id)
            .await
            .map_err(ApiError::from)?
        else {
            return Ok(None);
        };
        let (principal, keystone) = if dash.app.keystone.is_some() {
            // Who the session's Keystone token speaks for now.
            let store = &dash.app.store;
            let token = store
                .web_session_value(&id, KEYSTONE_TOKEN)
                .await
                .map_err(ApiError::from)?;
            let Some(token) = token.as_ref().and_then(|t| t.as_str()) else {
                return Ok(None);
            };
            match vetro_server::auth::resolve(&dash.app, token).await {
                Ok(c) => (c.principal, c.keystone),
                Err(e) if e.status == StatusCode::UNAUTHORIZED => {
                    store
                        .delete_web_session(&id)
                        .await
                        .map_err(ApiError::from)?;
                    return Ok(None);
                }
                Err(e) => return Err(e.into()),
            }
        } else {
            (s.principal, None)
        };
        Ok(Some(User {
            id,
            csrf: s.csrf,
            dash: dash.clone(),
            ctx: Ctx {
                principal,
                access: Access::Project,
                keystone,
            },
        }))
    }

    pub fn session_id(&self) -> &str {
        &self.id
    }

    pub fn csrf(&self) -> &str {
        &self.csrf
    }

    /// `user · project` as the person knows them: Keystone's names, or a
    /// token's ids.
    pub fn display_name(&self) -> String {
        match &self.ctx.keystone {
            Some(k) => format!("{} · {}", k.identity.user_name, k.identity.project_name),
            None => format!("{} · {}", self.ctx.user(), self.ctx.project()),
        }
    }

    pub fn is_admin(&self) -> bool {
        self.ctx.principal.is_admin
    }

    /// Shows `text` on the next page.
    pub fn flash(&self, ok: bool, text: impl Into<String>) {
        let f = Flash {
            ok,
            text: text.into(),
        };
        lock(&self.dash.sessions.flashes).insert(self.id.clone(), f);
    }

    pub fn take_flash(&self) -> Option<Flash> {
        lock(&self.dash.sessions.flashes).remove(&self.id)
    }

    async fn value(&self, name: &str) -> Option<serde_json::Value> {
        let store = &self.dash.app.store;
        match store.web_session_value(&self.id, name).await {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!("reading a dashboard session: {e}");
                None
            }
        }
    }

    async fn set_value(&self, name: &str, v: Option<&serde_json::Value>) {
        let store = &self.dash.app.store;
        if let Err(e) = store.set_web_session_value(&self.id, name, v).await {
            tracing::warn!("writing a dashboard session: {e}");
        }
    }

    /// The configuration session this person edits `env_id` in.
    pub async fn env_session(&self, env_id: &str) -> Option<String> {
        let v = self.value(&format!("env/{env_id}")).await?;
        v.as_str().map(str::to_string)
    }

    pub async fn set_env_session(&self, env_id: &str, session_id: &str) {
        let v = serde_json::Value::from(session_id);
        self.set_value(&format!("env/{env_id}"), Some(&v)).await
    }

    pub async fn forget_env_session(&self, env_id: &str) {
        self.set_value(&format!("env/{env_id}"), None).await
    }

    /// A form filled in part (a wizard's state), by a key of the page's choosing.
    pub async fn draft(&self, key: &str) -> Option<serde_json::Value> {
        self.value(&format!("draft/{key}")).await
    }

    pub async fn set_draft(&self, key: &str, v: serde_json::Value) {
        self.set_value(&format!("draft/{key}"), Some(&v)).await
    }

    pub async fn clear_draft(&self, key: &str) {
        self.set_value(&format!("draft/{key}"), None).await
    }

    /// Checks a posted CSRF token against the session's.
    pub fn check_csrf(&self, posted: Option<&str>) -> Result<(), PageError> {
        match posted {
            Some(t) if same_secret(t, &self.csrf) => Ok(()),
            _ => Err(PageError::new(
                StatusCode::FORBIDDEN,
                "This form has expired or did not come from this dashboard. Go back, reload the page and try again.",
            )),
        }
    }
}

fn to_signin() -> Response {
    Redirect::to("/signin").into_response()
}

impl FromRequestParts<Dashboard> for User {
    type Rejection = Response;
    async fn from_request_parts(parts: &mut Parts, dash: &Dashboard) -> Result<User, Response> {
        match User::lookup(&parts.headers, dash).await {
            Ok(Some(u)) => Ok(u),
            Ok(None) => Err(to_signin()),
            Err(e) => Err(e.into_response()),
        }
    }
}

/// The fields of a posted form, in order.
#[derive(Clone, Debug, Default)]
pub struct Fields(pub Vec<(String, String)>);

impl Fields {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The trimmed value of `key`, empty when absent.
    pub fn text(&self, key: &str) -> &str {
        self.get(key).map(str::trim).unwrap_or_default()
    }

    pub fn all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// A form posted by the signed-in person, its CSRF token checked.
pub struct Posted {
    pub user: User,
    pub fields: Fields,
}

impl FromRequest<Dashboard> for Posted {
    type Rejection = Response;
    async fn from_request(req: Request, dash: &Dashboard) -> Result<Posted, Response> {
        let (mut parts, body) = req.into_parts();
        let user = User::from_request_parts(&mut parts, dash).await?;
        let req = Request::from_parts(parts, body);
        let Form(pairs) = Form::<Vec<(String, String)>>::from_request(req, dash)
            .await
            .map_err(|e| PageError::new(StatusCode::BAD_REQUEST, e.body_text()).into_response())?;
        let fields = Fields(pairs);
        user.check_csrf(fields.get("_csrf"))
            .map_err(IntoResponse::into_response)?;
        Ok(Posted { user, fields })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "a=1; vetro_session=abc; b=2".parse().unwrap(),
        );
        assert_eq!(cookie(&h, SESSION_COOKIE).as_deref(), Some("abc"));
        assert_eq!(cookie(&h, "c"), None);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "ab"));
    }

    #[test]
    fn the_cookie_is_http_only_strict_and_expiring() {
        let c = set_cookie(SESSION_COOKIE, "x", Duration::from_secs(60));
        assert!(
            c.contains("HttpOnly") && c.contains("SameSite=Strict") && c.contains("Max-Age=60")
        );
    }
}
