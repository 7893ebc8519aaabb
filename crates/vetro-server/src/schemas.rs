//! The schemas of Murano's JSON shapes, for the OpenAPI description
//! ([`crate::openapi`]) and the handlers' annotations that name them.

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
pub struct ErrorDetail {
    message: String,
    #[schema(rename = "type")]
    kind: String,
    /// vetro addition: structured details (package diagnostics, policy violations).
    details: Option<AnyValue>,
}

/// Murano's error body, sent when the request's `Accept` names
/// `application/json` (or `application/*`).
#[derive(ToSchema)]
pub struct ErrorBody {
    code: u16,
    title: String,
    explanation: String,
    error: ErrorDetail,
}

/// The same error as an HTML page (title, heading, message), as Murano's
/// WebOb renders errors for clients that accept anything (`*/*`, the
/// `murano` client) or prefer HTML.
#[derive(ToSchema)]
pub struct ErrorPage(String);

#[derive(ToSchema)]
pub struct EnvironmentCreate {
    /// 1 to 255 characters, not blank.
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    name: String,
    region: Option<String>,
    #[schema(rename = "defaultNetworks", value_type = Option<Object>)]
    default_networks: Option<AnyObject>,
}

#[derive(ToSchema)]
pub struct EnvironmentView {
    id: String,
    name: String,
    tenant_id: String,
    version: i64,
    description_text: String,
    created: String,
    updated: String,
    /// ready, pending, deploying, deploy failure, deleting, delete failure
    status: String,
    acquired_by: Option<String>,
    services: Option<Vec<AnyValue>>,
}

#[derive(ToSchema)]
pub struct EnvironmentList {
    environments: Vec<EnvironmentView>,
    /// The id of this page's last environment, when more follow.
    next_marker: Option<String>,
}

#[derive(ToSchema)]
pub struct SessionView {
    id: String,
    environment_id: String,
    user_id: String,
    /// opened, deploying, deployed, deploy failure, deleting, delete failure
    state: String,
    version: i64,
    created: String,
    updated: String,
}

#[derive(ToSchema)]
pub struct DeploymentView {
    id: String,
    environment_id: Option<String>,
    started: String,
    finished: Option<String>,
    description: Option<AnyValue>,
    action: Option<AnyValue>,
    result: Option<AnyValue>,
    /// running, running_w_warnings, running_w_errors, success, completed_w_warnings, completed_w_errors
    state: String,
    created: String,
    updated: String,
    /// vetro addition: deploy, delete or action.
    kind: String,
    /// vetro addition: queued, running, succeeded, failed or cancelled.
    task_state: String,
}

#[derive(ToSchema)]
pub struct DeploymentList {
    deployments: Vec<DeploymentView>,
    /// The id of this page's last deployment, when more follow.
    next_marker: Option<String>,
}

#[derive(ToSchema)]
pub struct ReportView {
    id: String,
    task_id: String,
    entity_id: String,
    entity: String,
    text: String,
    /// info, warning or error
    level: String,
    details: Option<String>,
    created: String,
    updated: String,
    timestamp: String,
}

#[derive(ToSchema)]
pub struct ReportList {
    reports: Vec<ReportView>,
    /// The id of this page's last report, when more follow.
    next_marker: Option<String>,
}

#[derive(ToSchema)]
pub struct PackageView {
    id: String,
    fully_qualified_name: String,
    name: String,
    #[schema(rename = "type")]
    kind: String,
    version: String,
    author: String,
    supplier: AnyObject,
    description: String,
    enabled: bool,
    is_public: bool,
    owner_id: String,
    tags: Vec<String>,
    categories: Vec<String>,
    class_definitions: Vec<String>,
    created: String,
    updated: String,
}

#[derive(ToSchema)]
pub struct PackageList {
    packages: Vec<PackageView>,
    next_marker: Option<String>,
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
pub struct CategoryView {
    id: String,
    name: String,
    package_count: i64,
    created: String,
    updated: String,
    packages: Option<Vec<AnyObject>>,
}

#[derive(ToSchema)]
pub struct CategoryCreate {
    /// 1 to 255 characters, not blank.
    #[schema(min_length = 1, max_length = 255, pattern = "\\S")]
    name: String,
}

#[derive(ToSchema)]
pub struct CategoryList {
    categories: Vec<CategoryView>,
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
pub struct TemplateView {
    id: String,
    name: String,
    tenant_id: String,
    version: i64,
    description_text: String,
    is_public: bool,
    created: String,
    updated: String,
    services: Option<Vec<AnyValue>>,
    description: Option<AnyValue>,
}

#[derive(ToSchema)]
pub struct TemplateList {
    templates: Vec<TemplateView>,
    /// The id of this page's last template, when more follow.
    next_marker: Option<String>,
}

#[derive(ToSchema)]
pub struct EnvironmentSession {
    environment_id: String,
    session_id: String,
}

/// One server-sent event (vetro addition): `report` events carry a status
/// report as JSON text with its sequence number as the event id; the last
/// event, `end`, carries the deployment's outcome.
#[derive(ToSchema)]
pub struct ServerSentEvent {
    /// `report` or `end`
    event: String,
    /// The report's sequence number (`report` events only).
    id: Option<String>,
    /// The report or the outcome, as JSON text.
    data: String,
}

#[derive(ToSchema)]
pub struct TaskId {
    task_id: String,
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

#[derive(ToSchema)]
pub struct PolicyView {
    policy: Option<String>,
    source: Option<String>,
}
