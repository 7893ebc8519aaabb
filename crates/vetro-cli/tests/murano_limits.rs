//! `vetro run` limits: a workflow that allocates without end stops with
//! `MemoryLimitExceeded`, one that loops with `StepLimitExceeded`.

use assert_cmd::Command;

const GROW: &str = r#"
Name: demo.Grow
Methods:
  deploy:
    Body:
      - $l: []
      - While: 1 = 1
        Do:
          - $l: $l + [range(0, 5000).toList()]
"#;

fn package() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("Classes")).unwrap();
    std::fs::write(dir.path().join("Classes/Grow.yaml"), GROW).unwrap();
    std::fs::write(
        dir.path().join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.grow\nVersion: 1.0.0\nClasses:\n  demo.Grow: Grow.yaml\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("model.json"),
        r#"{"?": {"id": "g1", "type": "demo.Grow"}}"#,
    )
    .unwrap();
    dir
}

fn run(limit: &[&str]) -> String {
    let dir = package();
    let out = Command::cargo_bin("vetro")
        .unwrap()
        .arg("run")
        .arg(dir.path())
        .arg("--model")
        .arg(dir.path().join("model.json"))
        .args(limit)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn memory_limit() {
    assert!(run(&["--max-memory", "32"]).contains("MemoryLimitExceeded"));
}

#[test]
fn step_limit() {
    assert!(run(&["--max-steps", "1000"]).contains("StepLimitExceeded"));
}
