//! Murano's JSON shapes for stored rows.

use serde_json::{json, Value};
use vetro_store::catalog::{Category, Package};
use vetro_store::environments::Environment;
use vetro_store::queue::Report;
use vetro_store::sessions::Session;
use vetro_store::templates::Template;

pub fn environment(e: &Environment, status: &str) -> Value {
    json!({
        "id": e.id,
        "name": e.name,
        "tenant_id": e.project_id,
        "version": e.version,
        "description_text": e.description_text,
        "created": e.created,
        "updated": e.updated,
        "status": status,
    })
}

pub fn session(s: &Session) -> Value {
    json!({
        "id": s.id,
        "environment_id": s.environment_id,
        "user_id": s.user_id,
        "state": s.state,
        "version": s.version,
        "created": s.created,
        "updated": s.updated,
    })
}

pub fn report(r: &Report) -> Value {
    json!({
        "id": r.id,
        "task_id": r.task_id,
        "entity_id": r.entity_id,
        "entity": r.entity,
        "text": r.text,
        "level": r.level,
        "details": r.details,
        "created": r.created,
        "updated": r.updated,
        "timestamp": r.created,
    })
}

pub fn package(p: &Package) -> Value {
    json!({
        "id": p.id,
        "fully_qualified_name": p.fully_qualified_name,
        "name": p.name,
        "type": p.kind,
        "version": p.version,
        "author": p.author,
        "supplier": p.supplier,
        "description": p.description,
        "enabled": p.enabled,
        "is_public": p.is_public,
        "owner_id": p.owner_id,
        "tags": p.tags,
        "categories": p.categories,
        "class_definitions": p.class_definitions,
        "created": p.created,
        "updated": p.updated,
    })
}

pub fn category(c: &Category) -> Value {
    json!({
        "id": c.id,
        "name": c.name,
        "package_count": c.package_count,
        "created": c.created,
        "updated": c.updated,
    })
}

pub fn template(t: &Template, with_services: bool) -> Value {
    let mut v = json!({
        "id": t.id,
        "name": t.name,
        "tenant_id": t.project_id,
        "version": t.version,
        "description_text": t.description_text,
        "is_public": t.is_public,
        "created": t.created,
        "updated": t.updated,
    });
    if with_services {
        v["services"] = t
            .model
            .get("services")
            .cloned()
            .unwrap_or_else(|| json!([]));
        v["description"] = t.model.clone();
    }
    v
}
