//! The request bodies the handlers read, for the API description
//! ([`crate::openapi`]) and the handlers' annotations that name them. The
//! handlers read each body field by field (with Murano's error messages),
//! so these types only describe it. Answers are typed in [`crate::views`].

// These types only describe JSON shapes for the generated document; no code
// reads their fields.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::HashMap;
use utoipa::ToSchema;

/// Any JSON value.
#[derive(ToSchema)]
pub struct AnyValue(Value);

/// Any JSON object.
#[derive(ToSchema)]
pub struct AnyObject(HashMap<String, Value>);

#[derive(ToSchema)]
pub struct EnvironmentCreate {
    /// 1 to 255 characters, not blank.
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    name: String,
    region: Option<String>,
    #[schema(rename = "defaultNetworks", value_type = Option<Object>)]
    default_networks: Option<AnyObject>,
}

/// A package upload: the zip archive plus optional metadata
/// (`{"tags", "categories", "description", "name", "is_public", "enabled"}`).
#[derive(ToSchema)]
pub struct PackageUpload {
    #[schema(format = Binary, value_type = String)]
    file: Vec<u8>,
    __metadata__: Option<String>,
}

#[derive(ToSchema)]
pub struct PatchOp {
    op: String,
    path: String,
    value: Option<AnyValue>,
    from: Option<String>,
}

#[derive(ToSchema)]
pub struct CategoryCreate {
    /// 1 to 255 characters, not blank.
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    name: String,
}

#[derive(ToSchema)]
pub struct TemplateCreate {
    /// 1 to 255 characters, not blank.
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    name: String,
    description_text: Option<String>,
    is_public: Option<bool>,
    services: Option<Vec<AnyObject>>,
}

#[derive(ToSchema)]
#[allow(non_snake_case)]
pub struct StaticAction {
    className: String,
    methodName: String,
    packageName: Option<String>,
    classVersion: Option<String>,
    parameters: Option<AnyObject>,
}

#[derive(ToSchema)]
pub struct PolicyUpdate {
    /// Congress (Datalog) rules defining `predeploy_errors(eid, oid, msg)`; null clears.
    policy: Option<String>,
}
