//! `X-Auth-Token` authentication: an API token (looked up by hash) or, with
//! `--auth keystone`, a Keystone token ([`crate::keystone`]); never logged.
//! The caller's project, user and admin flag travel as [`Ctx`], with the
//! route's [`Access`].

use crate::access::{Access, Privilege};
use crate::error::ApiError;
use crate::keystone::KeystoneCaller;
use crate::rate::RateLimits;
use crate::state::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use vetro_store::tokens::Principal;

/// The authenticated caller, with the access its route grants.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub principal: Principal,
    /// The route's entry in [`crate::routes::table`].
    pub access: Access,
    /// The Keystone caller (with `--auth keystone`): the tasks they submit
    /// act through a trust created with their token.
    pub keystone: Option<Arc<KeystoneCaller>>,
}

impl Ctx {
    pub fn project(&self) -> &str {
        &self.principal.project_id
    }
    pub fn user(&self) -> &str {
        &self.principal.user_id
    }
    /// Whether the caller may use `p` on this route: an admin token on a
    /// route whose access names `p`.
    pub fn may(&self, p: Privilege) -> bool {
        self.principal.is_admin && self.access.privilege() == Some(p)
    }
    /// [`Ctx::may`], or 403.
    pub fn require(&self, p: Privilege) -> Result<(), ApiError> {
        if self.may(p) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "only administrators may {}",
                p.describe()
            )))
        }
    }
}

/// Who a token speaks for.
#[derive(Clone, Debug)]
pub struct Caller {
    pub principal: Principal,
    /// Set when the service uses Keystone.
    pub keystone: Option<Arc<KeystoneCaller>>,
}

/// Resolves `token`: with Keystone, a Keystone token (401 when Keystone
/// refuses it, 503 when Keystone cannot be asked); otherwise an API token.
pub async fn resolve(st: &AppState, token: &str) -> Result<Caller, ApiError> {
    let Some(ks) = &st.keystone else {
        return match st.store.authenticate(token).await? {
            Some(principal) => Ok(Caller {
                principal,
                keystone: None,
            }),
            None => Err(ApiError::unauthorized("the token is not valid")),
        };
    };
    let (principal, caller) = ks.caller(token).await?;
    Ok(Caller {
        principal,
        keystone: Some(Arc::new(caller)),
    })
}

/// The trust a task submitted by `caller` acts through: `None` when the
/// service does not use Keystone; a new trust from the caller to the
/// service user otherwise.
pub async fn delegate(
    st: &AppState,
    caller: Option<&KeystoneCaller>,
) -> Result<Option<String>, ApiError> {
    let Some(ks) = &st.keystone else {
        return Ok(None);
    };
    match caller {
        Some(c) => ks.delegate(c).await.map(Some),
        None => Err(ApiError::unauthorized(
            "a Keystone token is needed to submit a task",
        )),
    }
}

/// Middleware of every route that needs a token: resolves it (or answers
/// 401), counts it against its rate (429), refuses non-admins on admin
/// routes (403), and hands the handler a [`Ctx`].
pub async fn authenticate(
    State((state, access, rates)): State<(AppState, Access, Option<RateLimits>)>,
    mut req: Request,
    next: Next,
) -> Response {
    let token = req
        .headers()
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        let e = ApiError::unauthorized("an X-Auth-Token header is required");
        return refused(&state, e);
    };
    let caller = match resolve(&state, token).await {
        Ok(c) => c,
        Err(e) => return refused(&state, e),
    };
    if let Some(rates) = &rates {
        if let Err(e) = rates.check(token) {
            return e.into_response();
        }
    }
    let ctx = Ctx {
        principal: caller.principal,
        access,
        keystone: caller.keystone,
    };
    if let Access::Admin(p) = access {
        if let Err(e) = ctx.require(p) {
            return e.into_response();
        }
    }
    req.extensions_mut().insert(ctx);
    next.run(req).await
}

/// The answer to a refused token; with Keystone, a 401 names where to
/// authenticate, as keystonemiddleware's does.
fn refused(state: &AppState, e: ApiError) -> Response {
    let unauthorized = e.status == axum::http::StatusCode::UNAUTHORIZED;
    let mut r = e.into_response();
    if let (true, Some(ks)) = (unauthorized, &state.keystone) {
        let v = format!("Keystone uri=\"{}\"", ks.validator.keystone_url());
        if let Ok(v) = v.parse() {
            r.headers_mut()
                .insert(axum::http::header::WWW_AUTHENTICATE, v);
        }
    }
    r
}

impl<S: Send + Sync> FromRequestParts<S> for Ctx {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Ctx, ApiError> {
        parts
            .extensions
            .get::<Ctx>()
            .cloned()
            .ok_or_else(|| ApiError::unauthorized("not authenticated"))
    }
}

/// The optional `X-Configuration-Session` header.
pub struct SessionHeader(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for SessionHeader {
    type Rejection = ApiError;
    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<SessionHeader, ApiError> {
        match parts.headers.get("x-configuration-session") {
            None => Ok(SessionHeader(None)),
            Some(v) => match v.to_str() {
                Ok(s) if !s.trim().is_empty() => Ok(SessionHeader(Some(s.trim().to_string()))),
                _ => Err(ApiError::bad_request(
                    "the X-Configuration-Session header is not a valid session id",
                )),
            },
        }
    }
}
