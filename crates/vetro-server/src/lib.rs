//! The vetro service: Murano's v1 REST API over [`vetro_store`].
//!
//! Layers: `routes` (one module per resource) use `scope` (tenancy),
//! `body`/`extract` (inputs), `requests` and `views` (Murano's JSON shapes
//! in and out), `package`
//! (archive inspection) and `model_path` (Murano's model addressing); all of
//! them answer errors as [`error::ApiError`]. [`router`] assembles the routes
//! with the middleware (request ids, tracing without credentials, body-size
//! limits, timeouts, panics as 500s, errors as HTML for clients that prefer
//! it, as Murano's WebOb does); [`serve`] runs it.

pub mod access;
pub mod auth;
pub mod body;
pub mod error;
pub mod extract;
pub mod kept;
pub mod keystone;
pub mod listen;
pub mod model_path;
pub mod negotiate;
pub mod openapi;
pub mod package;
pub mod paging;
pub mod quota;
pub mod rate;
pub mod requests;
pub mod routes;
pub mod scope;
pub mod state;
pub mod views;
pub mod worker;

pub use state::{AppState, Limits};

use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, Request};
use axum::response::IntoResponse;
use axum::{middleware, Router};
use error::{ApiError, ErrorKind};
use std::future::Future;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};
use tower_http::trace::TraceLayer;

/// Every route of [`routes::table`], each behind the check of its access.
fn api_routes(st: &AppState) -> Router<AppState> {
    let mut router = Router::new();
    let rates = st.limits.rate.map(rate::RateLimits::new);
    for e in routes::table(&st.limits) {
        let access = e.rule.access;
        let handler = if access.needs_token() {
            e.handler.route_layer(middleware::from_fn_with_state(
                (st.clone(), access, rates.clone()),
                auth::authenticate,
            ))
        } else {
            e.handler
        };
        router = router.route(&e.rule.path, handler);
    }
    router
}

/// `GET /openapi.json`: [`openapi::document`], built once.
#[utoipa::path(get, path = "/openapi.json", tag = "vetro",
    responses((status = 200, description = "This API description (OpenAPI 3.1)", body = Object)))]
pub async fn api_description() -> axum::response::Response {
    static DOC: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    axum::Json(DOC.get_or_init(openapi::document).clone()).into_response()
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such resource")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        ErrorKind::MethodNotAllowed,
        "this method is not allowed on this resource",
    )
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    tracing::error!("a request handler panicked");
    ApiError::new(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        ErrorKind::InternalServerError,
        "internal error",
    )
    .into_response()
}

/// The whole service as a router.
pub fn router(st: AppState) -> Router {
    router_with(st, Router::new())
}

/// The service with `extra` routes beside the API (the web dashboard),
/// under the same request ids, tracing, timeouts and panic handling.
/// `extra` must not claim `/v1`, `/openapi.json`, `/healthz` or `/readyz`.
pub fn router_with(st: AppState, extra: Router) -> Router {
    let request_id = HeaderName::from_static("x-request-id");
    let limits = st.limits.clone();
    Router::new()
        .merge(api_routes(&st))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(st.limits.json_body))
        .with_state(st)
        .merge(extra)
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .layer(TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ))
        .layer(middleware::from_fn(negotiate::errors_as_requested))
        .layer(PropagateRequestIdLayer::new(request_id.clone()))
        // Spans carry the method, the path and the request id; never headers
        // or query strings, so tokens cannot reach the logs.
        .layer(TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
            let id = req
                .headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id = %id)
        }))
        .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
}

/// Serves `st` on `listener` until `shutdown` resolves.
pub async fn serve(
    st: AppState,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = st.limits.clone();
    listen::serve(router(st), listener, &limits, shutdown).await
}
