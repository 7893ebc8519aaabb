//! The OpenAPI description: the operations of [`crate::routes::table`] (each
//! from its handler's annotation, with its access rule) and the schemas of
//! the handlers' request bodies in [`crate::requests`] and answer types in
//! [`crate::views`]. Every operation also documents the error statuses
//! with Murano's error body.

use crate::access::RouteRule;
use crate::views::{ErrorBody, ErrorDetail, ErrorPage};
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::path::Operation;
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
    security(("token" = [])),
    components(schemas(ErrorBody, ErrorPage, ErrorDetail)),
)]
pub struct ApiDoc;

/// The API description as served: [`ApiDoc`] with every documented route
/// of [`crate::routes::table`], each operation's access rule added as
/// `x-vetro-access` and at the end of its description.
pub fn document() -> serde_json::Value {
    let mut api = ApiDoc::openapi();
    let routes = crate::routes::table(&crate::Limits::default());
    for entry in routes {
        let Some(doc) = entry.doc else { continue };
        let components = api.components.get_or_insert_with(Default::default);
        components.schemas.extend(doc.schemas);
        let operation = with_access(doc.operation, &entry.rule);
        api.paths
            .add_path_operation(entry.rule.openapi_path(), vec![doc.method], operation);
    }
    Common.modify(&mut api);
    serde_json::to_value(api).unwrap_or_default()
}

fn with_access(mut op: Operation, rule: &RouteRule) -> Operation {
    let text = format!("Access: {}.", rule.access.describe());
    op.description = Some(match op.description.take() {
        Some(d) if !d.is_empty() => format!("{d}\n\n{text}"),
        _ => text,
    });
    let access = ExtensionsBuilder::new().add("x-vetro-access", rule.access.name());
    op.extensions = Some(access.build());
    if !rule.access.needs_token() {
        op.security = Some(Vec::new());
    }
    op
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document has one operation per route of the table (a route
    /// that only adds a trailing `/` is shown once), each with its rule.
    #[test]
    fn the_document_describes_every_route_once() {
        let doc = document();
        let mut documented = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                documented.push((method.to_ascii_uppercase(), path.clone()));
                assert!(op["x-vetro-access"].is_string(), "{method} {path}");
                // Answers of `null` too are described as what they are.
                let answer = &op["responses"]["200"]["content"];
                assert!(answer.is_object(), "{method} {path}");
                assert!(op["responses"]["404"].is_object(), "{method} {path}");
            }
        }
        let rules = crate::routes::rules();
        let mut routed: Vec<_> = rules
            .iter()
            .filter(|r| {
                let trimmed = r.path.trim_end_matches('/');
                !(r.path.ends_with('/')
                    && rules
                        .iter()
                        .any(|o| o.method == r.method && o.path == trimmed))
            })
            .map(|r| (r.method.to_string(), r.openapi_path()))
            .collect();
        documented.sort();
        routed.sort();
        assert_eq!(documented, routed);
        let tail = &doc["paths"]["/v1/environments/{environment_id}/services/{path}"]["get"];
        assert!(tail["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "path" && p["in"] == "path"));
    }
}
