//! `X-Auth-Token` authentication. The token is looked up by hash and never
//! logged; the caller's project, user and admin flag travel as [`Ctx`].

use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use vetro_store::tokens::Principal;

/// The authenticated caller.
#[derive(Clone, Debug)]
pub struct Ctx(pub Principal);

impl Ctx {
    pub fn project(&self) -> &str {
        &self.0.project_id
    }
    pub fn user(&self) -> &str {
        &self.0.user_id
    }
    pub fn is_admin(&self) -> bool {
        self.0.is_admin
    }
    pub fn require_admin(&self, what: &str) -> Result<(), ApiError> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "only administrators may {what}"
            )))
        }
    }
}

/// Middleware: resolves the token or answers 401.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let token = req
        .headers()
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        return ApiError::unauthorized("an X-Auth-Token header is required").into_response();
    };
    match state.store.authenticate(token).await {
        Ok(Some(p)) => {
            req.extensions_mut().insert(Ctx(p));
            next.run(req).await
        }
        Ok(None) => ApiError::unauthorized("the token is not valid").into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
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
