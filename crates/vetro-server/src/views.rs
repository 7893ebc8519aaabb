//! Murano's JSON shapes: every answer body of the API that is not the
//! caller's own data, each written once as a type. The handlers return
//! these types and the API description ([`crate::openapi`]) shows the
//! schemas derived from them, so the two cannot differ. Fields go out in
//! the order written here, `Option` fields as `null` unless marked to be
//! left out.

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use vetro_store::catalog::{Category, Package};
use vetro_store::environments::{Environment, EnvironmentSummary};
use vetro_store::page::Page;
use vetro_store::queue::{Deployment, Report, Task, TaskKind};
use vetro_store::sessions::Session;
use vetro_store::templates::Template;

/// The id of a page's last item, when more items follow it.
fn next_marker<T>(page: &Page<T>, id: impl Fn(&T) -> &str) -> Option<String> {
    page.items
        .last()
        .filter(|_| page.more)
        .map(|last| id(last).to_string())
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    pub message: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// vetro addition: structured details (package diagnostics, policy violations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// Murano's error body, sent when the request's `Accept` names
/// `application/json` (or `application/*`).
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub code: u16,
    pub title: &'static str,
    pub explanation: String,
    pub error: ErrorDetail,
}

/// The same error as an HTML page (title, heading, message), as Murano's
/// WebOb renders errors for clients that accept anything (`*/*`, the
/// `murano` client) or prefer HTML.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ErrorPage(String);

#[derive(Serialize, ToSchema)]
pub struct EnvironmentView {
    pub id: String,
    pub name: String,
    pub tenant_id: String,
    pub version: i64,
    pub description_text: String,
    pub created: String,
    pub updated: String,
    /// ready, pending, deploying, deploy failure, deleting, delete failure
    pub status: String,
}

impl EnvironmentView {
    pub fn new(e: &Environment, status: String) -> EnvironmentView {
        EnvironmentView {
            id: e.id.clone(),
            name: e.name.clone(),
            tenant_id: e.project_id.clone(),
            version: e.version,
            description_text: e.description_text.clone(),
            created: e.created.clone(),
            updated: e.updated.clone(),
            status,
        }
    }
}

impl From<EnvironmentSummary> for EnvironmentView {
    fn from(e: EnvironmentSummary) -> EnvironmentView {
        EnvironmentView {
            id: e.id,
            name: e.name,
            tenant_id: e.project_id,
            version: e.version,
            description_text: e.description_text,
            created: e.created,
            updated: e.updated,
            status: e.status,
        }
    }
}

/// One environment as `GET /v1/environments/{id}` shows it.
#[derive(Serialize, ToSchema)]
pub struct EnvironmentDetail {
    #[serde(flatten)]
    pub environment: EnvironmentView,
    /// The session deploying or deleting the environment.
    pub acquired_by: Option<String>,
    /// The applications of the model (or of the session's draft).
    #[schema(value_type = Vec<Value>)]
    pub services: Value,
}

#[derive(Serialize, ToSchema)]
pub struct EnvironmentList {
    pub environments: Vec<EnvironmentView>,
    /// The id of this page's last environment, when more follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_marker: Option<String>,
}

impl From<Page<EnvironmentSummary>> for EnvironmentList {
    fn from(page: Page<EnvironmentSummary>) -> EnvironmentList {
        EnvironmentList {
            next_marker: next_marker(&page, |e| &e.id),
            environments: page.items.into_iter().map(Into::into).collect(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SessionView {
    pub id: String,
    pub environment_id: String,
    pub user_id: String,
    /// opened, deploying, deployed, deploy failure, deleting, delete failure
    pub state: String,
    pub version: i64,
    pub created: String,
    pub updated: String,
}

impl From<&Session> for SessionView {
    fn from(s: &Session) -> SessionView {
        SessionView {
            id: s.id.clone(),
            environment_id: s.environment_id.clone(),
            user_id: s.user_id.clone(),
            state: s.state.clone(),
            version: s.version,
            created: s.created.clone(),
            updated: s.updated.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DeploymentView {
    pub id: String,
    pub environment_id: Option<String>,
    /// The model deployed (its `Objects`, with `applications` named `services`).
    pub description: Value,
    /// What was asked (null for a deletion).
    pub action: Value,
    pub created: String,
    /// vetro addition: deploy, delete or action.
    pub kind: &'static str,
    /// The engine's result (`{}` before there is one).
    pub result: Value,
    pub started: String,
    pub finished: Option<String>,
    /// running, running_w_warnings, running_w_errors, success, completed_w_warnings, completed_w_errors
    pub state: &'static str,
    pub updated: String,
    /// vetro addition: queued, running, succeeded, failed or cancelled.
    pub task_state: String,
}

/// The model as Murano shows it in task descriptions (`services`, not `applications`).
fn services_named(mut objects: Value) -> Value {
    if let Some(o) = objects.as_object_mut() {
        if let Some(apps) = o.shift_remove("applications") {
            o.insert("services".into(), apps);
        }
    }
    objects
}

impl From<Deployment> for DeploymentView {
    fn from(d: Deployment) -> DeploymentView {
        let state = d.state();
        let t = d.task;
        DeploymentView {
            id: t.id,
            environment_id: t.environment_id,
            description: services_named(t.description.unwrap_or(Value::Null)),
            action: match t.kind {
                TaskKind::Delete => Value::Null,
                _ => t.payload,
            },
            kind: t.kind.as_str(),
            result: t
                .result
                .unwrap_or_else(|| Value::Object(Default::default())),
            started: t.started.unwrap_or_else(|| t.created.clone()),
            created: t.created,
            finished: t.finished,
            state,
            updated: t.updated,
            task_state: t.state,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DeploymentList {
    pub deployments: Vec<DeploymentView>,
    /// The id of this page's last deployment, when more follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_marker: Option<String>,
}

impl From<Page<Deployment>> for DeploymentList {
    fn from(page: Page<Deployment>) -> DeploymentList {
        DeploymentList {
            next_marker: next_marker(&page, |d| &d.task.id),
            deployments: page.items.into_iter().map(Into::into).collect(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ReportView {
    pub id: String,
    pub task_id: String,
    pub entity_id: String,
    pub entity: String,
    pub text: String,
    /// info, warning or error
    pub level: String,
    pub details: Option<String>,
    pub created: String,
    pub updated: String,
    pub timestamp: String,
}

impl From<&Report> for ReportView {
    fn from(r: &Report) -> ReportView {
        ReportView {
            id: r.id.clone(),
            task_id: r.task_id.clone(),
            entity_id: r.entity_id.clone(),
            entity: r.entity.clone(),
            text: r.text.clone(),
            level: r.level.clone(),
            details: r.details.clone(),
            created: r.created.clone(),
            updated: r.updated.clone(),
            timestamp: r.created.clone(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct ReportList {
    pub reports: Vec<ReportView>,
    /// The id of this page's last report, when more follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_marker: Option<String>,
}

impl From<&Page<Report>> for ReportList {
    fn from(page: &Page<Report>) -> ReportList {
        ReportList {
            reports: page.items.iter().map(Into::into).collect(),
            next_marker: next_marker(page, |r| &r.id),
        }
    }
}

/// `GET /v1/environments/{id}/lastStatus`: the newest report about each
/// application (by its id), or null.
#[derive(Serialize, ToSchema)]
pub struct LastStatuses {
    #[serde(rename = "lastStatuses")]
    #[schema(value_type = HashMap<String, LastStatus>)]
    pub last_statuses: IndexMap<String, LastStatus>,
}

/// The newest report about one application, or null.
#[derive(Serialize, ToSchema)]
pub struct LastStatus(pub Option<ReportView>);

#[derive(Serialize, ToSchema)]
pub struct PackageView {
    pub id: String,
    pub fully_qualified_name: String,
    pub name: String,
    /// Application or Library
    #[serde(rename = "type")]
    pub kind: String,
    pub version: String,
    pub author: String,
    #[schema(value_type = HashMap<String, Value>)]
    pub supplier: Value,
    pub description: String,
    pub enabled: bool,
    pub is_public: bool,
    pub owner_id: String,
    pub tags: Vec<String>,
    pub categories: Vec<String>,
    pub class_definitions: Vec<String>,
    pub created: String,
    pub updated: String,
}

impl From<Package> for PackageView {
    fn from(p: Package) -> PackageView {
        PackageView {
            id: p.id,
            fully_qualified_name: p.fully_qualified_name,
            name: p.name,
            kind: p.kind,
            version: p.version,
            author: p.author,
            supplier: p.supplier,
            description: p.description,
            enabled: p.enabled,
            is_public: p.is_public,
            owner_id: p.owner_id,
            tags: p.tags,
            categories: p.categories,
            class_definitions: p.class_definitions,
            created: p.created,
            updated: p.updated,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct PackageList {
    pub packages: Vec<PackageView>,
    /// The id of this page's last package, when more follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_marker: Option<String>,
}

impl From<Page<Package>> for PackageList {
    fn from(page: Page<Package>) -> PackageList {
        PackageList {
            next_marker: next_marker(&page, |p| &p.id),
            packages: page.items.into_iter().map(Into::into).collect(),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct CategoryView {
    pub id: String,
    pub name: String,
    pub package_count: i64,
    pub created: String,
    pub updated: String,
}

impl From<Category> for CategoryView {
    fn from(c: Category) -> CategoryView {
        CategoryView {
            id: c.id,
            name: c.name,
            package_count: c.package_count,
            created: c.created,
            updated: c.updated,
        }
    }
}

/// A package of a category, as the category shows it.
#[derive(Serialize, ToSchema)]
pub struct PackageName {
    pub id: String,
    pub name: String,
    pub fully_qualified_name: String,
}

/// One category as `GET /v1/catalog/categories/{id}` shows it.
#[derive(Serialize, ToSchema)]
pub struct CategoryDetail {
    #[serde(flatten)]
    pub category: CategoryView,
    /// Its packages the caller can see.
    pub packages: Vec<PackageName>,
}

#[derive(Serialize, ToSchema)]
pub struct CategoryList {
    pub categories: Vec<CategoryView>,
}

#[derive(Serialize, ToSchema)]
pub struct TemplateView {
    pub id: String,
    pub name: String,
    pub tenant_id: String,
    pub version: i64,
    pub description_text: String,
    pub is_public: bool,
    pub created: String,
    pub updated: String,
}

impl From<&Template> for TemplateView {
    fn from(t: &Template) -> TemplateView {
        TemplateView {
            id: t.id.clone(),
            name: t.name.clone(),
            tenant_id: t.project_id.clone(),
            version: t.version,
            description_text: t.description_text.clone(),
            is_public: t.is_public,
            created: t.created.clone(),
            updated: t.updated.clone(),
        }
    }
}

/// One template with its applications and description.
#[derive(Serialize, ToSchema)]
pub struct TemplateDetail {
    #[serde(flatten)]
    pub template: TemplateView,
    #[schema(value_type = Vec<Value>)]
    pub services: Value,
    /// Murano's template description: `{"name", "services", ...}`.
    pub description: Value,
}

impl From<Template> for TemplateDetail {
    fn from(t: Template) -> TemplateDetail {
        TemplateDetail {
            template: TemplateView::from(&t),
            services: t
                .model
                .get("services")
                .cloned()
                .unwrap_or_else(|| Value::Array(Vec::new())),
            description: t.model,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct TemplateList {
    pub templates: Vec<TemplateView>,
    /// The id of this page's last template, when more follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_marker: Option<String>,
}

impl From<Page<Template>> for TemplateList {
    fn from(page: Page<Template>) -> TemplateList {
        TemplateList {
            templates: page.items.iter().map(Into::into).collect(),
            next_marker: next_marker(&page, |t| &t.id),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct EnvironmentSession {
    pub environment_id: String,
    pub session_id: String,
}

#[derive(Serialize, ToSchema)]
pub struct TaskId {
    pub task_id: String,
}

/// vetro addition: a cancel request accepted.
#[derive(Serialize, ToSchema)]
pub struct CancelRequested {
    pub id: String,
    pub cancel_requested: bool,
}

/// The last server-sent event of a deployment (vetro addition).
#[derive(Serialize, ToSchema)]
pub struct StreamEnd {
    pub id: String,
    /// The task's state; `deleted` when the deployment is gone.
    pub task_state: String,
    /// The engine's result (left out when the deployment is gone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl From<&Task> for StreamEnd {
    fn from(t: &Task) -> StreamEnd {
        StreamEnd {
            id: t.id.clone(),
            task_state: t.state.clone(),
            result: Some(t.result.clone().unwrap_or(Value::Null)),
        }
    }
}

/// One server-sent event (vetro addition): `report` events carry a status
/// report ([`ReportView`]) as JSON text with its sequence number as the
/// event id; the last event, `end`, carries the deployment's outcome
/// ([`StreamEnd`]).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct ServerSentEvent {
    /// `report` or `end`
    event: String,
    /// The report's sequence number (`report` events only).
    id: Option<String>,
    /// The report or the outcome, as JSON text.
    data: String,
}

#[derive(Serialize, ToSchema)]
pub struct PolicyView {
    /// Congress (Datalog) rules, or null when none applies.
    pub policy: Option<String>,
    /// `project` or `default`, or null when no policy applies.
    pub source: Option<&'static str>,
}

/// The answer of a change with nothing to report (a deletion, a deployment
/// queued): `null`, as Murano's.
#[derive(Serialize)]
pub struct Done;

impl utoipa::PartialSchema for Done {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Null)
            .description(Some("`null`"))
            .into()
    }
}

impl ToSchema for Done {}

/// An action's outcome: `{}` while it runs, then its result (any JSON
/// value, `null` included) and whether that is an exception.
#[derive(Serialize, ToSchema)]
pub struct ActionResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Value)]
    pub result: Option<Value>,
    #[serde(rename = "isException", skip_serializing_if = "Option::is_none")]
    pub is_exception: Option<bool>,
}

/// `/healthz` and `/readyz` (vetro additions).
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` (the process is up) or `ready` (the database answers).
    pub status: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Members go out in Murano's order, `null` where Murano sent null,
    /// and `next_marker` only when more items follow.
    #[test]
    fn answers_are_written_as_murano_wrote_them() {
        let env = EnvironmentDetail {
            environment: EnvironmentView {
                id: "e1".into(),
                name: "web".into(),
                tenant_id: "p1".into(),
                version: 2,
                description_text: String::new(),
                created: "2026-01-02T03:04:05".into(),
                updated: "2026-01-02T03:04:06".into(),
                status: "ready".into(),
            },
            acquired_by: None,
            services: Value::Array(Vec::new()),
        };
        assert_eq!(
            serde_json::to_string(&env).unwrap(),
            "{\"id\":\"e1\",\"name\":\"web\",\"tenant_id\":\"p1\",\"version\":2,\
             \"description_text\":\"\",\"created\":\"2026-01-02T03:04:05\",\
             \"updated\":\"2026-01-02T03:04:06\",\"status\":\"ready\",\
             \"acquired_by\":null,\"services\":[]}"
        );
        let report = Report {
            id: "r1".into(),
            task_id: "t1".into(),
            seq: 1,
            entity_id: "o1".into(),
            entity: "environment".into(),
            text: "done".into(),
            level: "info".into(),
            details: None,
            created: "c".into(),
            updated: "u".into(),
        };
        let mut page = Page {
            items: vec![report],
            more: false,
        };
        let text = "{\"id\":\"r1\",\"task_id\":\"t1\",\"entity_id\":\"o1\",\
             \"entity\":\"environment\",\"text\":\"done\",\"level\":\"info\",\
             \"details\":null,\"created\":\"c\",\"updated\":\"u\",\"timestamp\":\"c\"}";
        assert_eq!(
            serde_json::to_string(&ReportList::from(&page)).unwrap(),
            format!("{{\"reports\":[{text}]}}")
        );
        page.more = true;
        assert_eq!(
            serde_json::to_string(&ReportList::from(&page)).unwrap(),
            format!("{{\"reports\":[{text}],\"next_marker\":\"r1\"}}")
        );
    }
}
