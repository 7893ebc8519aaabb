//! The vetro web dashboard: the catalog, environments, component forms and
//! live deployments in a browser, served by `vetro serve` at `/` beside the
//! API under `/v1`.
//!
//! Pages are rendered on the server with `maud` (every interpolated value is
//! HTML-escaped); the stylesheet and one small script are embedded in the
//! binary. Pages call the API's handlers in `vetro-server` directly, as Rust
//! functions, so the API's tenancy rules decide what a signed-in person sees.
//!
//! Layers: `error` and `assets` at the bottom, then `session` (sign-in
//! sessions, cookies, CSRF) and `page` (layout, security headers); `api` (calls into the service);
//! then one module per area: `signin`, `catalog`, `environments`,
//! `components`, `deployments`, `actions`, `templates`, `policy`; `svg` draws an
//! environment's components; `classes` reads the MuranoPL of a stored
//! package and `params` turns a method's argument contracts into fields.

mod actions;
mod api;
mod assets;
mod catalog;
mod classes;
mod components;
mod deployments;
mod environments;
mod error;
pub mod fields;
mod page;
mod params;
mod policy;
mod session;
mod signin;
mod svg;
mod templates;

pub use session::SESSION_COOKIE;

use axum::routing::{get, post};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;
use vetro_server::AppState;

/// How long a sign-in lasts.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(8 * 3600);

/// The dashboard's state: the service's state plus the sign-in sessions.
#[derive(Clone)]
pub struct Dashboard {
    pub(crate) app: AppState,
    pub(crate) sessions: Arc<session::Sessions>,
}

impl Dashboard {
    pub fn new(app: AppState) -> Dashboard {
        Dashboard {
            app,
            sessions: Arc::new(session::Sessions::new(SESSION_LIFETIME)),
        }
    }

    /// The dashboard's routes, to be served beside the API
    /// (`vetro_server::router_with`).
    pub fn router(self) -> Router {
        let env = "/environments/{env_id}";
        Router::new()
            .route("/", get(signin::home))
            .route("/signin", get(signin::form).post(signin::submit))
            .route("/signout", post(signin::sign_out))
            .route("/static/{file}", get(assets::serve))
            .route("/catalog", get(catalog::list))
            .route("/catalog/import", post(catalog::import))
            .route("/catalog/{id}", get(catalog::show))
            .route("/catalog/{id}/logo", get(catalog::logo))
            .route("/catalog/{id}/publish", post(catalog::publish))
            .route("/catalog/{id}/enable", post(catalog::enable))
            .route("/catalog/{id}/delete", post(catalog::delete))
            .route(
                "/categories",
                get(catalog::categories).post(catalog::add_category),
            )
            .route("/categories/{id}/delete", post(catalog::delete_category))
            .route(
                "/environments",
                get(environments::list).post(environments::create),
            )
            .route("/add-component", get(components::add_redirect))
            .route(env, get(environments::show))
            .route(&format!("{env}/deploy"), post(environments::deploy))
            .route(&format!("{env}/discard"), post(environments::discard))
            .route(&format!("{env}/delete"), post(environments::delete))
            .route(&format!("{env}/abandon"), post(environments::abandon))
            .route(&format!("{env}/add"), get(components::choose))
            .route(
                &format!("{env}/add/{{package_id}}"),
                get(components::wizard).post(components::wizard_submit),
            )
            .route(
                &format!("{env}/components/{{obj}}/edit"),
                get(components::edit).post(components::edit_submit),
            )
            .route(
                &format!("{env}/components/{{obj}}/remove"),
                post(components::remove),
            )
            .route(
                &format!("{env}/actions/{{action}}"),
                get(actions::action_form).post(actions::run_action),
            )
            .route(
                &format!("{env}/deployments/{{dep}}"),
                get(deployments::show),
            )
            .route(
                &format!("{env}/deployments/{{dep}}/events"),
                get(deployments::events),
            )
            .route("/templates", get(templates::list).post(templates::create))
            .route(
                "/templates/{id}/environment",
                post(templates::create_environment),
            )
            .route("/templates/{id}/delete", post(templates::delete))
            .route("/policy", get(policy::show).post(policy::save))
            .layer(axum::extract::DefaultBodyLimit::max(
                self.app.limits.package_upload + 64 * 1024,
            ))
            .layer(axum::middleware::from_fn(page::security_headers))
            .with_state(self)
    }
}

/// The dashboard's routes for `app`: sign-in with an API token, or with
/// Keystone (a user name, password and project) when `app` uses Keystone.
pub fn router(app: AppState) -> Router {
    Dashboard::new(app).router()
}
