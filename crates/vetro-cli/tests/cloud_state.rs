//! `vetro run --cloud-state`: the simulated cloud survives between runs, so
//! an instance that leaves the model takes its resources out of the stack.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

fn example(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/murano")
        .join(rel)
}

fn run(model: &std::path::Path, state: &std::path::Path) -> Value {
    let out = Command::cargo_bin("vetro")
        .unwrap()
        .arg("run")
        .arg(example("webserver"))
        .arg("--model")
        .arg(model)
        .arg("--cloud-state")
        .arg(state)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stack_resources(state: &std::path::Path) -> Vec<String> {
    let s: Value = serde_json::from_str(&std::fs::read_to_string(state).unwrap()).unwrap();
    let stacks = s["stacks"].as_object().unwrap();
    stacks
        .values()
        .flat_map(|st| st["resources"].as_object().unwrap().keys().cloned())
        .collect()
}

#[test]
fn a_removed_application_releases_its_instance() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("cloud.json");
    let first = run(&example("environment.json"), &state);
    let before = stack_resources(&state);
    assert!(before.iter().any(|r| r.starts_with("web-1")), "{before:?}");

    let mut model = first["model"].clone();
    model["Objects"]["applications"] = Value::Array(Vec::new());
    let next = dir.path().join("model.json");
    std::fs::write(&next, model.to_string()).unwrap();
    run(&next, &state);
    let after = stack_resources(&state);
    assert!(!after.iter().any(|r| r.starts_with("web-1")), "{after:?}");
    assert!(after.iter().any(|r| r == "web-sg"), "{after:?}");
}
