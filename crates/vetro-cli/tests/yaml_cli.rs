//! `vetro yaml`: exit codes, stdout/stderr separation and both output formats.

use assert_cmd::Command;
use std::path::Path;

fn vetro() -> Command {
    Command::cargo_bin("vetro").expect("the vetro binary is built")
}

fn write(dir: &Path, name: &str, text: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path.display().to_string()
}

#[test]
fn convert_applies_merges_and_yaml_11_booleans() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "a.yaml",
        b"base: &b {required: yes, n: 017}\nitem:\n  <<: *b\n  extra: off\n",
    );
    let out = vetro().args(["yaml", "convert", &file]).output().unwrap();
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        value["item"],
        serde_json::json!({"required": true, "n": 15, "extra": false})
    );
}

#[test]
fn convert_to_yaml_under_12_rules() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "a.yaml", b"a: yes\nb: [1, 2]\n");
    let out = vetro()
        .args(["yaml", "convert", &file, "--to", "yaml", "--yaml", "1.2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a: \"yes\"\nb:\n- 1\n- 2\n"
    );
}

#[test]
fn bundled_example_converts() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/app.yaml");
    vetro()
        .args(["yaml", "convert"])
        .arg(example)
        .assert()
        .success();
}

#[test]
fn duplicate_key_is_exit_1_with_both_positions() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "d.yaml", b"a: 1\nb: 2\na: 3\n");
    let out = vetro().args(["yaml", "check", &file]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("duplicate-key"), "{err}");
    assert!(err.contains("d.yaml:3:1"), "{err}");
    assert!(err.contains("first defined here"), "{err}");
}

#[test]
fn json_format_reports_problems_as_data() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "e.yaml", b"a: [1, 2\n");
    let out = vetro()
        .args(["yaml", "check", &file, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let problems: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(problems[0]["kind"], "yaml-syntax");
    assert_eq!(problems[0]["location"]["line"], 2);
}

#[test]
fn unreadable_inputs_are_exit_2_and_bad_ones_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.yaml").display().to_string();
    let folder = dir.path().display().to_string();
    for path in [missing, folder] {
        let out = vetro().args(["yaml", "convert", &path]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert!(out.stdout.is_empty());
    }
    let empty = write(dir.path(), "empty.yaml", b"");
    let binary = write(dir.path(), "bin.yaml", b"\x7fELF\x02\x01\x01\x00\x00");
    let tabs = write(dir.path(), "tabs.yaml", b"a:\n\t- b\n");
    for path in [empty, binary, tabs] {
        let out = vetro().args(["yaml", "convert", &path]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{path}");
        assert!(out.stdout.is_empty(), "{path}");
        assert!(!out.stderr.is_empty(), "{path}");
    }
}

#[test]
fn usage_errors_are_exit_2() {
    vetro().args(["yaml", "convert"]).assert().code(2);
    vetro()
        .args(["yaml", "convert", "x", "--yaml", "1.3"])
        .assert()
        .code(2);
}
