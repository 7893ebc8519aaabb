//! The vetro service: Murano's v1 REST API over [`vetro_store`].
//!
//! Layers: `routes` (one module per resource) use `scope` (tenancy),
//! `body`/`extract` (inputs), `views` (Murano's JSON shapes), `package`
//! (archive inspection) and `model_path` (Murano's model addressing); all of
//! them answer errors as [`error::ApiError`]. [`router`] assembles the routes
//! with the middleware (request ids, tracing without credentials, body-size
//! limits, timeouts, panics as 500s, errors as HTML for clients that prefer
//! it, as Murano's WebOb does); [`serve`] runs it.

pub mod auth;
pub mod body;
pub mod error;
pub mod extract;
pub mod model_path;
pub mod negotiate;
pub mod openapi;
pub mod package;
pub mod routes;
pub mod schemas;
pub mod scope;
pub mod state;
pub mod views;
pub mod worker;

pub use state::{AppState, Limits};

use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, Request};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{middleware, Json, Router};
use error::ApiError;
use routes::*;
use std::future::Future;
use std::time::Duration;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;

/// The `/v1` routes that need a token.
fn api_routes(st: &AppState) -> Router<AppState> {
    let env = "/v1/environments/{environment_id}";
    Router::new()
        .route(
            "/v1/environments",
            get(environments::list).post(environments::create),
        )
        .route(
            env,
            get(environments::show)
                .put(environments::rename)
                .delete(environments::delete),
        )
        .route(&format!("{env}/lastStatus"), get(environments::last_status))
        .route(
            &format!("{env}/model/"),
            get(model::get_root).patch(model::patch),
        )
        .route(&format!("{env}/model/{{*path}}"), get(model::get_path))
        .route(&format!("{env}/configure"), post(sessions::configure))
        .route(
            &format!("{env}/sessions/{{session_id}}"),
            get(sessions::show).delete(sessions::delete),
        )
        .route(
            &format!("{env}/sessions/{{session_id}}/deploy"),
            post(sessions::deploy),
        )
        .route(
            &format!("{env}/services"),
            get(services::list).post(services::post).put(services::put),
        )
        .route(
            &format!("{env}/services/"),
            get(services::list).post(services::post).put(services::put),
        )
        .route(
            &format!("{env}/services/{{*path}}"),
            get(services::get)
                .post(services::post_path)
                .put(services::put_path)
                .delete(services::delete_path),
        )
        .route(&format!("{env}/deployments"), get(deployments::list))
        .route(
            &format!("{env}/deployments/{{deployment_id}}"),
            get(deployments::reports),
        )
        .route(
            &format!("{env}/deployments/{{deployment_id}}/cancel"),
            post(vetro::cancel),
        )
        .route(
            &format!("{env}/deployments/{{deployment_id}}/events"),
            get(vetro::events),
        )
        .route(
            &format!("{env}/actions/{{action_id}}"),
            post(actions::execute).get(actions::result),
        )
        .route("/v1/deployments", get(deployments::list_all))
        .route("/v1/actions", post(actions::static_action))
        .route(
            "/v1/catalog/packages",
            get(catalog::search)
                .post(catalog::upload)
                .layer(DefaultBodyLimit::max(st.limits.package_upload + 64 * 1024)),
        )
        .route(
            "/v1/catalog/packages/{package_id}",
            get(catalog::show)
                .patch(catalog::update)
                .delete(catalog::delete),
        )
        .route(
            "/v1/catalog/packages/{package_id}/download",
            get(catalog::download),
        )
        .route("/v1/catalog/packages/{package_id}/ui", get(catalog::ui))
        .route("/v1/catalog/packages/{package_id}/logo", get(catalog::logo))
        .route(
            "/v1/catalog/packages/{package_id}/supplier_logo",
            get(catalog::supplier_logo),
        )
        .route(
            "/v1/catalog/categories",
            get(catalog::categories).post(catalog::add_category),
        )
        .route(
            "/v1/catalog/categories/{category_id}",
            get(catalog::category).delete(catalog::delete_category),
        )
        .route(
            "/v1/templates",
            get(templates::list).post(templates::create),
        )
        .route(
            "/v1/templates/{env_template_id}",
            get(templates::show)
                .put(templates::update)
                .delete(templates::delete),
        )
        .route(
            "/v1/templates/{env_template_id}/services",
            get(templates::services).post(templates::add_service),
        )
        .route(
            "/v1/templates/{env_template_id}/services/{*path}",
            get(templates::get_service)
                .put(templates::put_service)
                .delete(templates::delete_service),
        )
        .route(
            "/v1/templates/{env_template_id}/create-environment",
            post(templates::create_environment),
        )
        .route(
            "/v1/templates/{env_template_id}/clone",
            post(templates::clone),
        )
        .route("/v1/policy", get(vetro::get_policy).put(vetro::put_policy))
        .route_layer(middleware::from_fn_with_state(
            st.clone(),
            auth::authenticate,
        ))
}

async fn openapi_json() -> impl IntoResponse {
    Json(openapi::ApiDoc::openapi())
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such resource")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "HTTPMethodNotAllowed",
        "this method is not allowed on this resource",
    )
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    tracing::error!("a request handler panicked");
    ApiError::new(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        "HTTPInternalServerError",
        "internal error",
    )
    .into_response()
}

/// The whole service as a router.
pub fn router(st: AppState) -> Router {
    let request_id = HeaderName::from_static("x-request-id");
    Router::new()
        .merge(api_routes(&st))
        .route("/openapi.json", get(openapi_json))
        .route("/healthz", get(vetro::health))
        .route("/readyz", get(vetro::ready))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(st.limits.json_body))
        .with_state(st)
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            Duration::from_secs(60),
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
    axum::serve(listener, router(st))
        .with_graceful_shutdown(shutdown)
        .await
}
