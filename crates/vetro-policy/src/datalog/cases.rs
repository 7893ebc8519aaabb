//! The JSON case protocol of `vetro policy eval --batch` (see FORMAT.md):
//! one case in, one answer out.

use super::ast::Statement;
use super::engine::Engine;
use super::error::{ErrorClass, PolicyError};
use super::parse;
use super::policy::PolicyKind;
use serde_json::{json, Value as Json};

/// Loads the case's policies: every policy is created first, then filled in order.
fn load(case: &Json) -> Result<(Engine, Option<String>), PolicyError> {
    let mut engine = Engine::new();
    let empty = Vec::new();
    let policies = case
        .get("policies")
        .and_then(Json::as_array)
        .unwrap_or(&empty);
    let mut first = None;
    for p in policies {
        let name = p.get("name").and_then(Json::as_str).unwrap_or("default");
        let kind_text = p
            .get("kind")
            .and_then(Json::as_str)
            .unwrap_or("nonrecursive");
        let kind = PolicyKind::parse(kind_text).ok_or_else(|| {
            PolicyError::new(
                ErrorClass::Other,
                format!("unknown policy kind {kind_text}"),
            )
        })?;
        engine.create_policy(name, kind);
        first.get_or_insert_with(|| name.to_string());
    }
    for p in policies {
        let name = p.get("name").and_then(Json::as_str).unwrap_or("default");
        let rules = p.get("rules").and_then(Json::as_str).unwrap_or("");
        engine.insert_text(name, rules)?;
    }
    Ok((engine, first))
}

fn target_of(case: &Json, first: Option<String>) -> String {
    case.get("target")
        .and_then(Json::as_str)
        .map(str::to_string)
        .or(first)
        .unwrap_or_else(|| "default".to_string())
}

fn run(case: &Json) -> Result<Vec<String>, PolicyError> {
    let kind = case.get("kind").and_then(Json::as_str).unwrap_or("query");
    match kind {
        "parse" => {
            let text = case.get("text").and_then(Json::as_str).unwrap_or("");
            Ok(parse::parse(text)?.iter().map(|s| s.to_string()).collect())
        }
        "query" => {
            let (mut engine, first) = load(case)?;
            let target = target_of(case, first);
            let text = case.get("query").and_then(Json::as_str).unwrap_or("");
            if let [Statement::Rule(rule)] = parse::parse(text).unwrap_or_default().as_slice() {
                return engine.query_rule(&target, rule);
            }
            let q = parse::parse_literal(text)?;
            let rows = engine.query(&target, &q)?;
            Ok(rows.iter().map(|r| engine.render(&q, r)).collect())
        }
        "simulate" => {
            let (mut engine, first) = load(case)?;
            let target = target_of(case, first);
            let q = parse::parse_literal(case.get("query").and_then(Json::as_str).unwrap_or(""))?;
            let seq = parse::parse(case.get("sequence").and_then(Json::as_str).unwrap_or(""))?;
            let action = case
                .get("action_policy")
                .and_then(Json::as_str)
                .unwrap_or("action")
                .to_string();
            let delta = case.get("delta").and_then(Json::as_bool).unwrap_or(false);
            engine.simulate(&q, &target, &seq, &action, delta)
        }
        "error" => {
            let (mut engine, first) = load(case)?;
            let target = target_of(case, first);
            let text = case.get("insert").and_then(Json::as_str).unwrap_or("");
            engine.insert_text(&target, text)?;
            Ok(Vec::new())
        }
        other => Err(PolicyError::new(
            ErrorClass::Other,
            format!("unknown case kind {other}"),
        )),
    }
}

/// Answers one case: `{"id", "result": [...]}` or `{"id", "error", "message"}`.
pub fn answer(case: &Json) -> Json {
    let id = case.get("id").cloned().unwrap_or(Json::Null);
    match run(case) {
        Ok(result) => json!({"id": id, "result": result}),
        Err(e) => json!({"id": id, "error": e.class.as_str(), "message": e.to_string()}),
    }
}
