//! The JSON-lines case protocol of `vetro policy eval --batch`: one case per
//! input line, one answer per output line, in order.
//!
//! A case is `{"id", "kind": "parse"|"query"|"simulate"|"error", "policies":
//! [{"name", "kind", "rules"}], "target", "query", ...}`; the answer is
//! `{"id", "result": [...]}` or `{"id", "error": CLASS, "message"}`. A line that
//! is not UTF-8 or not JSON is answered with a `syntax` error and the batch goes on.

use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};
use vetro_policy::datalog::ast::Statement;
use vetro_policy::datalog::{parse, Engine, ErrorClass, PolicyError, PolicyKind};

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

fn run_case(case: &Json) -> Result<Vec<String>, PolicyError> {
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
    match run_case(case) {
        Ok(result) => json!({"id": id, "result": result}),
        Err(e) => json!({"id": id, "error": e.class.label(), "message": e.to_string()}),
    }
}

/// Answers one input line (without its line break).
pub fn answer_line(line: &[u8]) -> Option<Json> {
    let Ok(text) = std::str::from_utf8(line) else {
        let at = std::str::from_utf8(line)
            .err()
            .map_or(0, |e| e.valid_up_to());
        return Some(json!({"id": null, "error": "syntax",
            "message": format!("bad case: not UTF-8 text (invalid byte at offset {at})")}));
    };
    if text.trim().is_empty() {
        return None;
    }
    Some(match serde_json::from_str::<Json>(text) {
        Ok(case) => answer(&case),
        Err(e) => json!({"id": null, "error": "syntax", "message": format!("bad JSON case: {e}")}),
    })
}

/// Runs the protocol until the input ends. Only I/O errors stop it.
pub fn run(mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        if !crate::read_line(&mut input, &mut line)? {
            break;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if let Some(answer) = answer_line(body) {
            writeln!(output, "{answer}")?;
            output.flush()?;
        }
    }
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(input: &[u8]) -> Vec<Json> {
        let mut out = Vec::new();
        run(input, &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn invalid_utf8_line_is_answered_and_the_batch_goes_on() {
        let input = b"{\"id\": 1, \"kind\": \"parse\", \"text\": \"p(1)\"}\n\xff\xfe bad\n{\"id\": 2, \"kind\": \"parse\", \"text\": \"q(x) :- p(x)\"}\n";
        let answers = batch(input);
        assert_eq!(answers.len(), 3);
        assert_eq!(answers[0]["result"], json!(["p(1)"]));
        assert_eq!(answers[1]["error"], "syntax");
        assert!(answers[1]["message"]
            .as_str()
            .unwrap()
            .contains("not UTF-8"));
        assert_eq!(answers[2]["id"], 2);
        assert_eq!(answers[2]["result"], json!(["q(x) :- p(x)"]));
    }

    #[test]
    fn bad_json_and_blank_lines() {
        let answers = batch(b"\n  \nnot json\n");
        assert_eq!(answers.len(), 1);
        assert_eq!(answers[0]["error"], "syntax");
    }
}
