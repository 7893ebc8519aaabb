//! One module per resource family, and [`table`]: every route of the
//! service with the access it requires, in one place. The router is built
//! from the table (so a route cannot exist without its rule), the API
//! description shows each rule, and the tests call every route with both
//! kinds of token.
//!
//! A route's method, path, parameters and answers are written once, in its
//! handler's `#[utoipa::path]` annotation (the path in axum's syntax, with
//! `{*rest}` for a tail of several segments); [`route`] reads them from
//! there for both the router and the API description. To add a route,
//! annotate its handler and add one `route!(access, handler)` here.

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
use axum::http::Method;
use axum::routing::MethodRouter;
use utoipa::openapi::path::{HttpMethod, Operation, PathItem};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa_axum::router::UtoipaMethodRouter;

/// A route: its rule, its handler and, unless it only repeats another
/// route under a second spelling, its operation in the API description.
pub struct Entry {
    pub rule: RouteRule,
    pub handler: MethodRouter<AppState>,
    pub doc: Option<Doc>,
}

/// A route's part of the API description, as its annotation wrote it.
pub struct Doc {
    pub method: HttpMethod,
    pub operation: Operation,
    /// The schemas the operation names.
    pub schemas: Vec<(String, RefOr<Schema>)>,
}

/// The route of one annotated handler, behind `access`.
macro_rules! route {
    ($access:expr, $($handler:tt)+) => {
        $crate::routes::Entry::new($access, utoipa_axum::routes!($($handler)+))
    };
}

impl Entry {
    /// The route of `annotated`, what `utoipa_axum::routes!` made of one
    /// handler: its one path and method, its operation and its handler.
    pub fn new(access: Access, annotated: UtoipaMethodRouter<AppState>) -> Entry {
        let (schemas, paths, handler) = annotated;
        let mut items = paths.paths.into_iter();
        let (Some((path, item)), None) = (items.next(), items.next()) else {
            panic!("route table: an entry is one annotated handler");
        };
        let (method, operation) = only_operation(item)
            .unwrap_or_else(|| panic!("route table: {path} needs exactly one method"));
        Entry {
            rule: RouteRule {
                method: axum_method(&method),
                path,
                access,
            },
            handler,
            doc: Some(Doc {
                method,
                operation,
                schemas,
            }),
        }
    }

    /// The same route at its path with a trailing `/` too (Murano's router
    /// matched both); the API description shows only the first.
    fn and_with_slash(self) -> [Entry; 2] {
        let alias = Entry {
            rule: RouteRule {
                path: format!("{}/", self.rule.path),
                ..self.rule.clone()
            },
            handler: self.handler.clone(),
            doc: None,
        };
        [self, alias]
    }
}

/// The method and operation of a path item that has exactly one.
fn only_operation(item: PathItem) -> Option<(HttpMethod, Operation)> {
    use HttpMethod as H;
    let ops = [
        (H::Get, item.get),
        (H::Put, item.put),
        (H::Post, item.post),
        (H::Delete, item.delete),
        (H::Options, item.options),
        (H::Head, item.head),
        (H::Patch, item.patch),
        (H::Trace, item.trace),
    ];
    let mut found = ops.into_iter().filter_map(|(m, op)| Some((m, op?)));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

fn axum_method(m: &HttpMethod) -> Method {
    match m {
        HttpMethod::Get => Method::GET,
        HttpMethod::Put => Method::PUT,
        HttpMethod::Post => Method::POST,
        HttpMethod::Delete => Method::DELETE,
        HttpMethod::Options => Method::OPTIONS,
        HttpMethod::Head => Method::HEAD,
        HttpMethod::Patch => Method::PATCH,
        HttpMethod::Trace => Method::TRACE,
    }
}

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
    use Privilege::AllTenants;
    let mut all = vec![
        route!(ProjectOr(AllTenants), environments::list),
        route!(Project, environments::create),
        route!(Project, environments::show),
        route!(Project, environments::rename),
        route!(Project, environments::delete),
        route!(Project, environments::last_status),
        route!(Project, model::get_root),
        route!(Project, model::patch),
        route!(Project, model::get_path),
        route!(Project, sessions::configure),
        route!(Project, sessions::show),
        route!(Project, sessions::delete),
        route!(Project, sessions::deploy),
    ];
    all.extend(route!(Project, services::list).and_with_slash());
    all.extend(route!(Project, services::post).and_with_slash());
    all.extend(route!(Project, services::put).and_with_slash());
    all.extend([
        route!(Project, services::get),
        route!(Project, services::post_path),
        route!(Project, services::put_path),
        route!(Project, services::delete_path),
        route!(Project, deployments::list),
        route!(Project, deployments::reports),
        route!(Project, vetro::cancel),
        route!(Project, vetro::events),
        route!(Project, actions::execute),
        route!(Project, actions::result),
    ]);
    all
}

/// Project-wide deployments and static actions, the catalog.
fn catalog_routes(limits: &Limits) -> Vec<Entry> {
    use Access::{Admin, Project, ProjectOr};
    use Privilege::{ManageCategories, Publish};
    let mut upload = route!(ProjectOr(Publish), catalog::upload);
    upload.handler = upload
        .handler
        .layer(DefaultBodyLimit::max(limits.package_upload + 64 * 1024));
    vec![
        route!(Project, deployments::list_all),
        route!(Project, actions::static_action),
        route!(Project, catalog::search),
        upload,
        route!(Project, catalog::show),
        route!(ProjectOr(Publish), catalog::update),
        route!(ProjectOr(Publish), catalog::delete),
        route!(Project, catalog::download),
        route!(Project, catalog::ui),
        route!(Project, catalog::logo),
        route!(Project, catalog::supplier_logo),
        route!(Project, catalog::categories),
        route!(Admin(ManageCategories), catalog::add_category),
        route!(Project, catalog::category),
        route!(Admin(ManageCategories), catalog::delete_category),
    ]
}

/// Templates, the project's policy, and the service's own routes.
fn template_and_service_routes() -> Vec<Entry> {
    use Access::{Anonymous, Project};
    vec![
        route!(Project, templates::list),
        route!(Project, templates::create),
        route!(Project, templates::show),
        route!(Project, templates::update),
        route!(Project, templates::delete),
        route!(Project, templates::services),
        route!(Project, templates::add_service),
        route!(Project, templates::get_service),
        route!(Project, templates::put_service),
        route!(Project, templates::delete_service),
        route!(Project, templates::create_environment),
        route!(Project, templates::clone),
        route!(Project, class_schema::class),
        route!(Project, class_schema::methods),
        route!(Project, vetro::get_policy),
        route!(Project, vetro::put_policy),
        route!(Anonymous, crate::api_description),
        route!(Anonymous, vetro::health),
        route!(Anonymous, vetro::ready),
    ]
}

/// The rules of [`table`], without handlers.
pub fn rules() -> Vec<RouteRule> {
    table(&Limits::default())
        .into_iter()
        .map(|e| e.rule)
        .collect()
}
