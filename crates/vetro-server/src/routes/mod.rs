//! One module per resource family, and [`table`]: every route of the
//! service with the access it requires, in one place. The router is built
//! from the table (so a route cannot exist without its rule), the API
//! description shows each rule, and the tests call every route with both
//! kinds of token.
//!
//! To add a route, add one [`Entry`] here: its method, path, [`Access`]
//! and handler.

pub mod actions;
pub mod catalog;
pub mod class_schema;
pub mod deployments;
pub mod environments;
pub mod model;
pub mod services;
pub mod sessions;
pub mod templates;
pub mod vetro;

use crate::access::{Access, Privilege, RouteRule};
use crate::state::{AppState, Limits};
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{on, MethodFilter, MethodRouter};

/// A route: its rule and its handler.
pub struct Entry {
    pub rule: RouteRule,
    pub handler: MethodRouter<AppState>,
}

fn entry<H, T>(method: Method, path: impl Into<String>, access: Access, handler: H) -> Entry
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone())
        .unwrap_or_else(|_| panic!("route table: {method} is not a routable method"));
    Entry {
        rule: RouteRule {
            method,
            path: path.into(),
            access,
        },
        handler: on(filter, handler),
    }
}

const ENV: &str = "/v1/environments/{environment_id}";

/// Every route of the service (`limits` sizes the upload route's body limit).
pub fn table(limits: &Limits) -> Vec<Entry> {
    let mut all = environment_routes();
    all.extend(catalog_routes(limits));
    all.extend(template_and_service_routes());
    all
}

/// Environments and what lives in them: the model, sessions, services,
/// deployments, actions.
fn environment_routes() -> Vec<Entry> {
    use Access::{Project, ProjectOr};
    use Method as M;
    use Privilege::AllTenants;
    let e = |p: &str| format!("{ENV}{p}");
    let services = &e("/services/{*path}");
    vec![
        entry(
            M::GET,
            "/v1/environments",
            ProjectOr(AllTenants),
            environments::list,
        ),
        entry(M::POST, "/v1/environments", Project, environments::create),
        entry(M::GET, ENV, Project, environments::show),
        entry(M::PUT, ENV, Project, environments::rename),
        entry(M::DELETE, ENV, Project, environments::delete),
        entry(M::GET, e("/lastStatus"), Project, environments::last_status),
        entry(M::GET, e("/model/"), Project, model::get_root),
        entry(M::PATCH, e("/model/"), Project, model::patch),
        entry(M::GET, e("/model/{*path}"), Project, model::get_path),
        entry(M::POST, e("/configure"), Project, sessions::configure),
        entry(M::GET, e("/sessions/{session_id}"), Project, sessions::show),
        entry(
            M::DELETE,
            e("/sessions/{session_id}"),
            Project,
            sessions::delete,
        ),
        entry(
            M::POST,
            e("/sessions/{session_id}/deploy"),
            Project,
            sessions::deploy,
        ),
        entry(M::GET, e("/services"), Project, services::list),
        entry(M::POST, e("/services"), Project, services::post),
        entry(M::PUT, e("/services"), Project, services::put),
        entry(M::GET, e("/services/"), Project, services::list),
        entry(M::POST, e("/services/"), Project, services::post),
        entry(M::PUT, e("/services/"), Project, services::put),
        entry(M::GET, services, Project, services::get),
        entry(M::POST, services, Project, services::post_path),
        entry(M::PUT, services, Project, services::put_path),
        entry(M::DELETE, services, Project, services::delete_path),
        entry(M::GET, e("/deployments"), Project, deployments::list),
        entry(
            M::GET,
            e("/deployments/{deployment_id}"),
            Project,
            deployments::reports,
        ),
        entry(
            M::POST,
            e("/deployments/{deployment_id}/cancel"),
            Project,
            vetro::cancel,
        ),
        entry(
            M::GET,
            e("/deployments/{deployment_id}/events"),
            Project,
            vetro::events,
        ),
        entry(
            M::POST,
            e("/actions/{action_id}"),
            Project,
            actions::execute,
        ),
        entry(M::GET, e("/actions/{action_id}"), Project, actions::result),
    ]
}

/// Project-wide deployments and static actions, the catalog.
fn catalog_routes(limits: &Limits) -> Vec<Entry> {
    use Access::{Admin, Project, ProjectOr};
    use Method as M;
    use Privilege::{ManageCategories, Publish};
    let upload = catalog::upload.layer(DefaultBodyLimit::max(limits.package_upload + 64 * 1024));
    vec![
        entry(M::GET, "/v1/deployments", Project, deployments::list_all),
        entry(M::POST, "/v1/actions", Project, actions::static_action),
        entry(M::GET, "/v1/catalog/packages", Project, catalog::search),
        entry(M::POST, "/v1/catalog/packages", ProjectOr(Publish), upload),
        entry(
            M::GET,
            "/v1/catalog/packages/{package_id}",
            Project,
            catalog::show,
        ),
        entry(
            M::PATCH,
            "/v1/catalog/packages/{package_id}",
            ProjectOr(Publish),
            catalog::update,
        ),
        entry(
            M::DELETE,
            "/v1/catalog/packages/{package_id}",
            ProjectOr(Publish),
            catalog::delete,
        ),
        entry(
            M::GET,
            "/v1/catalog/packages/{package_id}/download",
            Project,
            catalog::download,
        ),
        entry(
            M::GET,
            "/v1/catalog/packages/{package_id}/ui",
            Project,
            catalog::ui,
        ),
        entry(
            M::GET,
            "/v1/catalog/packages/{package_id}/logo",
            Project,
            catalog::logo,
        ),
        entry(
            M::GET,
            "/v1/catalog/packages/{package_id}/supplier_logo",
            Project,
            catalog::supplier_logo,
        ),
        entry(
            M::GET,
            "/v1/catalog/categories",
            Project,
            catalog::categories,
        ),
        entry(
            M::POST,
            "/v1/catalog/categories",
            Admin(ManageCategories),
            catalog::add_category,
        ),
        entry(
            M::GET,
            "/v1/catalog/categories/{category_id}",
            Project,
            catalog::category,
        ),
        entry(
            M::DELETE,
            "/v1/catalog/categories/{category_id}",
            Admin(ManageCategories),
            catalog::delete_category,
        ),
    ]
}

/// Templates, the project's policy, and the service's own routes.
fn template_and_service_routes() -> Vec<Entry> {
    use Access::{Anonymous, Project};
    use Method as M;
    vec![
        entry(M::GET, "/v1/templates", Project, templates::list),
        entry(M::POST, "/v1/templates", Project, templates::create),
        entry(
            M::GET,
            "/v1/templates/{env_template_id}",
            Project,
            templates::show,
        ),
        entry(
            M::PUT,
            "/v1/templates/{env_template_id}",
            Project,
            templates::update,
        ),
        entry(
            M::DELETE,
            "/v1/templates/{env_template_id}",
            Project,
            templates::delete,
        ),
        entry(
            M::GET,
            "/v1/templates/{env_template_id}/services",
            Project,
            templates::services,
        ),
        entry(
            M::POST,
            "/v1/templates/{env_template_id}/services",
            Project,
            templates::add_service,
        ),
        entry(
            M::GET,
            "/v1/templates/{env_template_id}/services/{*path}",
            Project,
            templates::get_service,
        ),
        entry(
            M::PUT,
            "/v1/templates/{env_template_id}/services/{*path}",
            Project,
            templates::put_service,
        ),
        entry(
            M::DELETE,
            "/v1/templates/{env_template_id}/services/{*path}",
            Project,
            templates::delete_service,
        ),
        entry(
            M::POST,
            "/v1/templates/{env_template_id}/create-environment",
            Project,
            templates::create_environment,
        ),
        entry(
            M::POST,
            "/v1/templates/{env_template_id}/clone",
            Project,
            templates::clone,
        ),
        entry(
            M::GET,
            "/v1/schemas/{class_name}",
            Project,
            class_schema::class,
        ),
        entry(
            M::GET,
            "/v1/schemas/{class_name}/{method_names}",
            Project,
            class_schema::methods,
        ),
        entry(M::GET, "/v1/policy", Project, vetro::get_policy),
        entry(M::PUT, "/v1/policy", Project, vetro::put_policy),
        entry(M::GET, "/openapi.json", Anonymous, crate::api_description),
        entry(M::GET, "/healthz", Anonymous, vetro::health),
        entry(M::GET, "/readyz", Anonymous, vetro::ready),
    ]
}

/// The rules of [`table`], without handlers.
pub fn rules() -> Vec<RouteRule> {
    table(&Limits::default())
        .into_iter()
        .map(|e| e.rule)
        .collect()
}
