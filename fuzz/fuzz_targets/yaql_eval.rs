//! YAQL parse + evaluate under limits: any expression, in the standard and
//! the legacy engine, evaluates or fails with an error within its
//! operation, time and memory budget, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::Duration;
use vetro_yaql::{data, Engine, EngineOptions, Limits, Options, Value};

fn options(legacy: bool) -> EngineOptions {
    EngineOptions {
        legacy,
        legacy_context: legacy,
        allow_delegates: true,
        delegates: true,
        format: true,
        yaql: Options {
            limit_iterators: 10_000,
            memory_quota: 1 << 20,
            max_depth: 200,
            limits: Limits {
                timeout: Some(Duration::from_millis(200)),
                max_operations: Some(200_000),
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

thread_local! {
    static ENGINES: (Engine, Engine) = (Engine::new(options(false)), Engine::new(options(true)));
}

fn input() -> &'static str {
    static DATA: OnceLock<String> = OnceLock::new();
    DATA.get_or_init(|| {
        r#"{"a": [1, 2.5, "x", null, true], "b": {"c": "d", "e": [{"f": 1}, {"f": 2}]}, "n": -3}"#
            .to_string()
    })
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let data = data::load_str("data", input()).unwrap_or(Value::Null);
    ENGINES.with(|(std, legacy)| {
        for engine in [std, legacy] {
            if let Ok(expr) = engine.parse(text) {
                let _ = engine.evaluate(&expr, data.clone(), &[]);
            }
        }
    });
});
