//! The `vetro yaql --batch` JSON Lines protocol (one answer line per case).

use crate::error::{Error, ErrorKind};
use crate::json::{decode, encode};
use crate::{Engine, EngineOptions, Options, Value};
use serde_json::{json, Map, Value as J};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Duration;

/// Engine options from a case's `options` object (missing keys take defaults).
pub fn engine_options(o: &Map<String, J>) -> EngineOptions {
    let b = |k: &str, d: bool| o.get(k).and_then(J::as_bool).unwrap_or(d);
    let i = |k: &str, d: i64| o.get(k).and_then(J::as_i64).unwrap_or(d);
    let legacy = b("legacy", false);
    EngineOptions {
        legacy,
        legacy_context: b("legacy_context", false),
        allow_delegates: b("allow_delegates", false),
        delegates: b("delegates", false),
        format: false,
        colon: false,
        is_operator: false,
        no_sets: b("no_sets", false),
        group_by_agg_fallback: o.get("group_by_agg_fallback").and_then(J::as_bool),
        yaql: Options {
            limit_iterators: i("yaql.limitIterators", -1),
            memory_quota: i("yaql.memoryQuota", -1),
            convert_tuples_to_lists: b("yaql.convertTuplesToLists", !legacy),
            convert_sets_to_lists: b("yaql.convertSetsToLists", false),
            iterable_dicts: b("yaql.iterableDicts", legacy),
            convert_output_data: true,
            max_depth: 2000,
            timeout: Some(Duration::from_secs(5)),
        },
    }
}

fn error_json(id: &J, e: &Error) -> J {
    json!({"id": id, "error": {"kind": e.kind.as_str(), "message": e.message}})
}

#[derive(serde::Deserialize)]
struct Case<'a> {
    #[serde(default)]
    id: J,
    #[serde(default)]
    expr: String,
    #[serde(borrow, default)]
    data: Option<&'a serde_json::value::RawValue>,
    #[serde(default)]
    vars: Option<Map<String, J>>,
    #[serde(default)]
    options: Option<Map<String, J>>,
}

/// Answer one case line.
pub fn run_case(line: &str, engines: &mut HashMap<String, Engine>) -> J {
    let case: Case = match serde_json::from_str(line) {
        Ok(c) => c,
        Err(e) => {
            return error_json(
                &J::Null,
                &Error::new(ErrorKind::Other, format!("bad input line: {e}")),
            )
        }
    };
    let empty = Map::new();
    let opts = case.options.as_ref().unwrap_or(&empty);
    let key = serde_json::to_string(opts).unwrap_or_default();
    let engine = engines
        .entry(key)
        .or_insert_with(|| Engine::new(engine_options(opts)));
    let result = (|| {
        let data = match case.data {
            Some(d) => crate::json::decode_str(d.get())?,
            None => Value::Null,
        };
        let mut vars = Vec::new();
        if let Some(m) = &case.vars {
            for (k, v) in m {
                vars.push((k.as_str(), decode(v)?));
            }
        }
        let e = engine.parse(&case.expr)?;
        engine.evaluate(&e, data, &vars)
    })();
    let id = case.id;
    match result {
        Ok(v) => json!({"id": id, "value": encode(&v, false)}),
        Err(e) => error_json(&id, &e),
    }
}

/// Run the protocol: read cases from `input`, write answers to `output`.
pub fn run(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    let mut engines: HashMap<String, Engine> = HashMap::new();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_case(&line, &mut engines)
        })) {
            Ok(a) => a,
            Err(_) => {
                engines.clear();
                let id = serde_json::from_str::<J>(&line)
                    .ok()
                    .and_then(|c| c.get("id").cloned())
                    .unwrap_or(J::Null);
                error_json(&id, &Error::new(ErrorKind::Other, "internal error"))
            }
        };
        writeln!(output, "{}", answer)?;
        output.flush()?;
    }
    Ok(())
}
