//! The `vetro yaql --batch` JSON Lines protocol: one case per input line
//! (`{"id", "expr", "data", "vars", "options"}`), one answer line per case
//! (`{"id", "value"}` or `{"id", "error": {"kind", "message"}}`), values in
//! the tagged encoding of [`encoding`].

pub mod encoding;

use encoding::{decode, decode_str, encode};
use serde_json::{json, Map, Value as J};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Duration;
use vetro_yaql::{Engine, EngineOptions, Error, ErrorKind, Limits, Options, Value};

/// Engine options from a case's `options` object (missing keys take
/// defaults), with the batch's `limits` and the protocol's 5 s time limit.
pub fn engine_options(o: &Map<String, J>, limits: &Limits) -> EngineOptions {
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
            limits: Limits {
                timeout: Some(Duration::from_secs(5)),
                ..limits.clone()
            },
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
pub fn run_case(line: &str, engines: &mut HashMap<String, Engine>, limits: &Limits) -> J {
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
        .or_insert_with(|| Engine::new(engine_options(opts, limits)));
    let result = (|| {
        let data = match case.data {
            Some(d) => decode_str(d.get())?,
            None => Value::Null,
        };
        let mut vars = Vec::new();
        if let Some(m) = &case.vars {
            for (k, v) in m {
                vars.push((k.as_str(), decode(v)?));
            }
        }
        let e = engine.parse(&case.expr)?;
        let v = engine.evaluate(&e, data, &vars)?;
        // The answer's encoding is held to the batch's memory limit.
        let mut left = limits.max_allocated.unwrap_or(usize::MAX);
        encode(&v, false, &mut left)
    })();
    let id = case.id;
    match result {
        Ok(v) => json!({"id": id, "value": v}),
        Err(e) => error_json(&id, &e),
    }
}

/// Run the protocol: read cases from `input`, write answers to `output`.
/// Every case runs under `limits` (the memory limit of the command line, for
/// one) and the protocol's own 5 s time limit. A line that is not UTF-8 or
/// not a case is answered with an error and the batch goes on; a panic while
/// answering a case is answered as an internal error (and the engines are
/// rebuilt).
pub fn run(
    mut input: impl BufRead,
    mut output: impl Write,
    limits: &Limits,
) -> std::io::Result<()> {
    let mut engines: HashMap<String, Engine> = HashMap::new();
    let mut bytes = Vec::new();
    let mut number = 0usize;
    loop {
        if !crate::read_line(&mut input, &mut bytes)? {
            return Ok(());
        }
        number += 1;
        let answer = match std::str::from_utf8(&bytes) {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => answer_line(line, &mut engines, limits),
            Err(e) => {
                let id = case_id(&String::from_utf8_lossy(&bytes));
                let message = format!(
                    "line {number}: invalid UTF-8 at byte {}",
                    e.valid_up_to() + 1
                );
                error_json(&id, &Error::new(ErrorKind::Other, message))
            }
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
}

fn answer_line(line: &str, engines: &mut HashMap<String, Engine>, limits: &Limits) -> J {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_case(line, engines, limits)
    })) {
        Ok(a) => a,
        Err(_) => {
            engines.clear();
            error_json(
                &case_id(line),
                &Error::new(ErrorKind::Other, "internal error"),
            )
        }
    }
}

/// The `id` of a case line, when it can be read.
fn case_id(line: &str) -> J {
    serde_json::from_str::<J>(line)
        .ok()
        .and_then(|c| c.get("id").cloned())
        .unwrap_or(J::Null)
}
