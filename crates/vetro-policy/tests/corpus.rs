//! The policy case corpus: every `tests/cases/*.yaml` file is a list of
//! cases, each run as its own named test (`<file>::<case>`).
//!
//! Datalog cases load `rules` into the policy `t` (of `kind`, default
//! `nonrecursive`) after any other `policies` (`{name, kind, rules}`), then
//! expect either the `answers` of `query` (a set of atoms in canonical text)
//! or the class of the compile `error`. With `actions` (rules of an action
//! policy) and `sequence`, the query is simulated and `answers` is the delta.
//!
//! Model cases give an object `model` (and optional `tenant`, `classes` as
//! `Child->Parent` lines) and expect either its decomposition `rows` (a set
//! of `murano:*+(...)` lines) or, with `rules`, the `predeploy_errors` as
//! `object: message` lines.
//!
//! `deviation: reason` marks a case where vetro is known to differ from the
//! reference: it must still fail, and the reason is printed.

use std::collections::BTreeSet;
use vetro_policy::datalog::parse::{parse, parse_literal};
use vetro_policy::datalog::{Engine, PolicyError, PolicyKind};
use vetro_policy::enforce;
use vetro_policy::facts::{self, ClassHierarchy, DecomposeOptions, MValue};
use vetro_yaml::Node;

fn main() {
    vetro_testcases::run_each(env!("CARGO_MANIFEST_DIR"), |case| {
        let node = case.node.clone();
        Ok(Box::new(move || check(&node)))
    })
}

fn str_of(n: &Node, key: &str) -> Option<String> {
    n.get(key).and_then(Node::as_str).map(str::to_string)
}

fn lines_of(n: &Node, key: &str) -> Option<BTreeSet<String>> {
    let items = n.get(key)?.as_seq()?;
    Some(items.iter().filter_map(|x| x.scalar_text()).collect())
}

fn check(case: &Node) -> Result<(), String> {
    if case.get("model").is_some() {
        return check_model(case);
    }
    let got = datalog(case);
    expect(case, got, "answers")
}

/// Compares an outcome with `key` (a set of lines) or with `error` (a class).
fn expect(
    case: &Node,
    got: Result<BTreeSet<String>, PolicyError>,
    key: &str,
) -> Result<(), String> {
    match (lines_of(case, key), str_of(case, "error"), got) {
        (Some(want), None, Ok(got)) if want == got => Ok(()),
        (Some(want), None, Ok(got)) => Err(format!("want {want:?}\n got {got:?}")),
        (None, Some(class), Err(e)) if e.class.label() == class => Ok(()),
        (None, Some(class), Err(e)) => Err(format!(
            "want a {class} error, got {}: {}",
            e.class.label(),
            e.message
        )),
        (None, Some(class), Ok(got)) => Err(format!("want a {class} error, got {got:?}")),
        (Some(_), None, Err(e)) => Err(format!(
            "unexpected {} error: {}",
            e.class.label(),
            e.message
        )),
        _ => Err(format!("a case needs exactly one of {key} and error")),
    }
}

fn kind_of(n: &Node) -> Result<PolicyKind, PolicyError> {
    let k = str_of(n, "kind").unwrap_or_else(|| "nonrecursive".into());
    PolicyKind::parse(&k).ok_or_else(|| {
        PolicyError::new(
            vetro_policy::datalog::ErrorClass::Other,
            format!("kind {k}"),
        )
    })
}

fn datalog(case: &Node) -> Result<BTreeSet<String>, PolicyError> {
    let mut engine = Engine::new();
    for p in case.get("policies").and_then(Node::as_seq).unwrap_or(&[]) {
        let name = str_of(p, "name").unwrap_or_default();
        engine.create_policy(&name, kind_of(p)?);
        engine.insert_text(&name, &str_of(p, "rules").unwrap_or_default())?;
    }
    engine.create_policy("t", kind_of(case)?);
    engine.insert_text("t", &str_of(case, "rules").unwrap_or_default())?;
    let query = parse_literal(&str_of(case, "query").unwrap_or_default())?;
    if let Some(actions) = str_of(case, "actions") {
        engine.create_policy("action", PolicyKind::Action);
        engine.insert_text("action", &actions)?;
        let seq = parse(&str_of(case, "sequence").unwrap_or_default())?;
        return Ok(engine
            .simulate(&query, "t", &seq, "action", true)?
            .into_iter()
            .collect());
    }
    let rows = engine.query("t", &query)?;
    Ok(rows.iter().map(|r| engine.render(&query, r)).collect())
}

fn check_model(case: &Node) -> Result<(), String> {
    let model = MValue::from_node(case.get("model").unwrap());
    let mut opts = DecomposeOptions {
        tenant: str_of(case, "tenant"),
        ..Default::default()
    };
    if let Some(edges) = str_of(case, "classes") {
        opts.classes =
            ClassHierarchy::parse_edges(&edges).map_err(|e| format!("classes: {e:?}"))?;
    }
    let d = match facts::decompose(&model, &opts) {
        Ok(d) => d,
        Err(diag) => {
            return match str_of(case, "error") {
                Some(kind) if diag.kind == kind.as_str() => Ok(()),
                _ => Err(format!(
                    "decomposition failed: {}: {}",
                    diag.kind, diag.message
                )),
            }
        }
    };
    match str_of(case, "rules") {
        None => {
            let got = d.rows.iter().map(|r| r.render()).collect();
            expect(case, Ok(got), "rows")
        }
        Some(rules) => {
            let got =
                enforce::validate(&d, &rules, kind_of(case).map_err(|e| e.message)?).map(|v| {
                    v.iter()
                        .map(|v| format!("{}: {}", v.object, v.message))
                        .collect()
                });
            expect(case, got, "errors")
        }
    }
}
