//! The OpenAPI description, generated from the handlers' annotations and
//! the schemas in [`crate::schemas`]. Every operation also documents the
//! error statuses with Murano's error body.

use crate::routes::*;
use crate::schemas::*;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{ContentBuilder, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi};

struct Common;

const ERRORS: &[(&str, &str)] = &[
    (
        "400",
        "Invalid input (Murano error body; package diagnostics in error.details)",
    ),
    (
        "401",
        "Missing or unknown X-Auth-Token, or another user's session",
    ),
    (
        "403",
        "Not allowed in this state or for this caller, or past a project quota",
    ),
    ("404", "No such object visible to the caller"),
    ("408", "The request took too long"),
    ("409", "Conflicts with an existing object"),
    (
        "413",
        "The body, the unpacked package or the resulting object model is too large",
    ),
    ("415", "Unsupported content type"),
    (
        "429",
        "The token is over its request rate (see Retry-After)",
    ),
    ("503", "The database or the engine is not available"),
];

impl Modify for Common {
    fn modify(&self, api: &mut utoipa::openapi::OpenApi) {
        let components = api.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "token",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-Auth-Token"))),
        );
        for item in api.paths.paths.values_mut() {
            let ops = [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
                &mut item.patch,
            ];
            for op in ops.into_iter().flatten() {
                for (code, text) in ERRORS {
                    let response = ResponseBuilder::new()
                        .description(*text)
                        .content(
                            "application/json",
                            ContentBuilder::new()
                                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                                    "ErrorBody",
                                ))))
                                .build(),
                        )
                        .content(
                            "text/html",
                            ContentBuilder::new()
                                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
                                    "ErrorPage",
                                ))))
                                .build(),
                        )
                        .build();
                    op.responses
                        .responses
                        .entry(code.to_string())
                        .or_insert(RefOr::T(response));
                }
            }
        }
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "vetro service",
        description = "A Murano-compatible application catalog and deployment API. Paths, headers, \
                       states and JSON shapes follow Murano's v1 API (success is HTTP 200). \
                       Operations tagged `vetro` and fields marked \"vetro addition\" are not part of Murano."
    ),
    modifiers(&Common),
    security(("token" = [])),
    components(schemas(ErrorBody, ErrorPage, ErrorDetail, AnyValue, AnyObject)),
    paths(
        environments::list, environments::create, environments::show, environments::rename,
        environments::delete, environments::last_status,
        model::get_root, model::get_path, model::patch,
        sessions::configure, sessions::show, sessions::delete, sessions::deploy,
        services::list, services::get, services::post, services::post_path, services::put,
        services::put_path, services::delete_path,
        deployments::list, deployments::list_all, deployments::reports,
        actions::execute, actions::result, actions::static_action,
        catalog::search, catalog::upload, catalog::show, catalog::update, catalog::delete,
        catalog::download, catalog::ui, catalog::logo, catalog::supplier_logo,
        catalog::categories, catalog::add_category, catalog::category, catalog::delete_category,
        templates::list, templates::create, templates::show, templates::update, templates::delete,
        templates::services, templates::add_service, templates::get_service, templates::put_service,
        templates::delete_service, templates::create_environment, templates::clone,
        class_schema::class, class_schema::methods,
        vetro::get_policy, vetro::put_policy, vetro::cancel, vetro::events, vetro::health, vetro::ready,
    )
)]
pub struct ApiDoc;

/// The API description as served: the generated document, with each
/// operation's access rule from [`crate::routes::table`] added as
/// `x-vetro-access` and at the end of its description.
pub fn document() -> serde_json::Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    for rule in crate::routes::rules() {
        let method = rule.method.as_str().to_ascii_lowercase();
        let Some(op) = doc
            .pointer_mut(&format!(
                "/paths/{}/{method}",
                pointer_escape(&rule.openapi_path())
            ))
            .and_then(serde_json::Value::as_object_mut)
        else {
            continue;
        };
        let text = format!("Access: {}.", rule.access.describe());
        let description = match op.get("description").and_then(serde_json::Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d}\n\n{text}"),
            _ => text,
        };
        op.insert("description".into(), description.into());
        op.insert("x-vetro-access".into(), rule.access.name().into());
        if !rule.access.needs_token() {
            op.insert("security".into(), serde_json::json!([]));
        }
    }
    doc
}

fn pointer_escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}
