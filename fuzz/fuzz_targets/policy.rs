//! Datalog: rules (the input, up to a NUL) loaded as the `murano_system`
//! policy over the decomposed object model (after the NUL as JSON, else the
//! example model), then the pre-deploy errors evaluated and the first few
//! explained, under small tuple and time limits. Rules parse or fail with a
//! compile error; evaluation ends or stops at a limit; never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use vetro_policy::datalog::explain::explain;
use vetro_policy::datalog::parse::parse_literal;
use vetro_policy::datalog::{Limits, PolicyKind};
use vetro_policy::enforce::{self, RULES_POLICY};
use vetro_policy::facts::{decompose, DecomposeOptions, Decomposition, MValue};

const EXAMPLE_MODEL: &str = include_str!("../../examples/policy/model.json");
const TIMEOUT: Duration = Duration::from_millis(250);

fn example() -> &'static Decomposition {
    static D: OnceLock<Decomposition> = OnceLock::new();
    D.get_or_init(|| {
        let model = vetro_yaml::parse_json_exact::<MValue>(EXAMPLE_MODEL).expect("example model");
        decompose(&model, &DecomposeOptions::default()).expect("example model decomposes")
    })
}

fn evaluate(d: &Decomposition, rules: &str, kind: PolicyKind) {
    let mut engine = enforce::model_engine(d);
    engine.limits = Limits {
        max_tuples: 20_000,
        timeout: Some(TIMEOUT),
    };
    if enforce::load_rules(&mut engine, rules, kind).is_err() {
        return;
    }
    let Ok(found) = enforce::violations(&mut engine) else {
        return;
    };
    for v in found.iter().take(3) {
        if let Ok(atom) = parse_literal(&v.atom) {
            let _ = explain(&mut engine, RULES_POLICY, &atom);
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let (rules, model) = match text.split_once('\0') {
        Some((rules, model)) => (rules, Some(model)),
        None => (text, None),
    };
    let own;
    let d = match model {
        None => example(),
        Some(model) => {
            let Some(value) = vetro_yaml::parse_json_exact::<MValue>(model) else {
                return;
            };
            let Ok(d) = decompose(&value, &DecomposeOptions::default()) else {
                return;
            };
            own = d;
            &own
        }
    };
    let started = Instant::now();
    for kind in [PolicyKind::Nonrecursive, PolicyKind::Materialized] {
        evaluate(d, rules, kind);
    }
    // Each evaluation stops at its time limit; far beyond is a limit that
    // does not hold (explain runs one more evaluation per atom).
    let took = started.elapsed();
    assert!(took < 40 * TIMEOUT, "the evaluations took {took:?}");
});
