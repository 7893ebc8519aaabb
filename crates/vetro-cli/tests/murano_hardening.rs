//! Hostile packages and bad input for `vetro run`, `vetro test` and `vetro
//! check`: limits that hold, no crash on cyclic classes or deep recursion,
//! clear usage errors, and a batch protocol that survives bad lines.

use assert_cmd::Command;
use std::path::Path;
use std::time::{Duration, Instant};

/// A package directory `demo.pkg` with the given class files (`(file, text)`)
/// and manifest class map, plus `model.json` for `demo.Main`.
fn package(classes: &[(&str, &str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("Classes")).unwrap();
    let mut manifest =
        String::from("Format: MuranoPL/1.4\nFullName: demo.pkg\nVersion: 1.0.0\nClasses:\n");
    for (name, file, text) in classes {
        if !text.is_empty() || !file.contains("..") {
            let path = dir.path().join("Classes").join(file);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::write(path, text).unwrap();
        }
        manifest.push_str(&format!("  {name}: {file}\n"));
    }
    std::fs::write(dir.path().join("manifest.yaml"), manifest).unwrap();
    std::fs::write(
        dir.path().join("model.json"),
        r#"{"?": {"id": "m1", "type": "demo.Main"}}"#,
    )
    .unwrap();
    dir
}

fn main_class(body: &str) -> String {
    format!("Name: demo.Main\nMethods:\n  deploy:\n    Body:\n{body}")
}

struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

fn vetro(args: &[&str], dir: &Path, stdin: Option<Vec<u8>>) -> Out {
    let start = Instant::now();
    let mut cmd = Command::cargo_bin("vetro").unwrap();
    cmd.current_dir(dir)
        .args(args)
        .timeout(Duration::from_secs(60));
    if let Some(input) = stdin {
        cmd.write_stdin(input);
    }
    let out = cmd.output().unwrap();
    Out {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: start.elapsed(),
    }
}

fn run_main(body: &str, limits: &[&str]) -> Out {
    let dir = package(&[("demo.Main", "Main.yaml", &main_class(body))]);
    let mut args = vec!["run", ".", "--model", "model.json"];
    args.extend_from_slice(limits);
    vetro(&args, dir.path(), None)
}

const DOUBLE_STRING: &str =
    "      - $s: x\n      - While: 1 = 1\n        Do:\n          - $s: $s + $s\n";

#[test]
fn memory_limit_stops_a_doubling_string() {
    let out = run_main(DOUBLE_STRING, &["--max-memory", "64"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("MemoryLimitExceeded"), "{}", out.stderr);
}

#[test]
fn str_of_a_shared_structure_stops_at_the_session_memory_limit() {
    // 60 lists, 2^60 items written out: refused before it is built, with the
    // session's own limit error (YAQL sees the session's memory limit).
    let body = "      - $l: [1]\n      - For: i\n        In: range(60)\n        Do:\n          - $l: [$l, $l]\n      - Return: str($l).len()\n";
    let out = run_main(body, &["--max-memory", "64"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("MemoryLimitExceeded"), "{}", out.stderr);
    assert!(out.took < Duration::from_secs(20), "took {:?}", out.took);
}

#[test]
fn a_shared_structure_does_not_make_steps_expensive() {
    // Each step doubles the number of paths through the value, not its size.
    let body = "      - $l: []\n      - While: 1 = 1\n        Do:\n          - $l: [$l, $l]\n";
    let out = run_main(body, &["--max-steps", "1000"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("StepLimitExceeded"), "{}", out.stderr);
    assert!(out.took < Duration::from_secs(20), "took {:?}", out.took);

    let out = run_main(body, &["--timeout", "1"]);
    assert!(out.stderr.contains("TimeLimitExceeded"), "{}", out.stderr);
    assert!(out.took < Duration::from_secs(20), "took {:?}", out.took);
}

#[test]
fn a_limit_in_one_test_fails_that_test_only() {
    let tests = "Namespaces:\n  =: demo\n  t: io.murano.test\nName: Tests\nExtends: t:TestFixture\nMethods:\n  testA:\n    Body:\n      - $x: 1\n  testBig:\n    Body:\n      - $s: x\n      - While: 1 = 1\n        Do:\n          - $s: $s + $s\n  testC:\n    Body:\n      - $x: 2\n";
    let dir = package(&[("demo.Tests", "Tests.yaml", tests)]);
    let out = vetro(&["test", ".", "--max-memory", "64"], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stdout.contains("PASS demo.Tests.testA"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("FAIL demo.Tests.testBig"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("MemoryLimitExceeded"), "{}", out.stdout);
    assert!(
        out.stdout.contains("PASS demo.Tests.testC"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("2 passed, 1 failed"), "{}", out.stdout);
}

#[test]
fn limit_values_that_are_not_limits_are_usage_errors() {
    let dir = package(&[("demo.Main", "Main.yaml", &main_class("      - $x: 1\n"))]);
    for bad in [
        &["--timeout", "inf"][..],
        &["--timeout", "1e308"],
        &["--timeout", "nan"],
        &["--timeout", "-1"],
        &["--max-memory", "18446744073709551615"],
    ] {
        let mut args = vec!["run", ".", "--model", "model.json"];
        args.extend_from_slice(bad);
        let out = vetro(&args, dir.path(), None);
        assert_eq!(out.code, Some(2), "{bad:?}: {}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{bad:?}: {}", out.stderr);
        assert!(out.stderr.contains(bad[0]), "{bad:?}: {}", out.stderr);
        let mut args = vec!["test", "."];
        args.extend_from_slice(bad);
        let out = vetro(&args, dir.path(), None);
        assert_eq!(out.code, Some(2), "{bad:?}: {}", out.stderr);
    }
    let out = vetro(
        &["run", ".", "--model", "model.json", "--timeout", "0"],
        dir.path(),
        None,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

fn batch_lines(dir: &Path, lines: &[&[u8]], limits: &[&str]) -> Vec<serde_json::Value> {
    let mut input = Vec::new();
    for l in lines {
        input.extend_from_slice(l);
        input.push(b'\n');
    }
    let mut args = vec!["run", "--batch"];
    args.extend_from_slice(limits);
    let out = vetro(&args, dir, Some(input));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn batch_mode_honours_limits_and_survives_bad_lines() {
    let dir = package(&[(
        "demo.Main",
        "Main.yaml",
        &main_class("      - While: 1 = 1\n        Do:\n          - $x: 1\n"),
    )]);
    let classes = dir.path().join("Classes");
    let begin = format!(
        r#"{{"op": "begin", "classes_dir": {:?}}}"#,
        classes.display().to_string()
    );
    let replies = batch_lines(
        dir.path(),
        &[
            begin.as_bytes(),
            b"{\"op\": \"load\", \"session\": 1, \"model\": {\"?\": {\"id\": \"m1\", \"type\": \"demo.Main\"}}}",
            b"\xff\xfe not text",
            b"{\"op\": \"call\", \"session\": 1, \"receiver\": {\"object\": \"m1\"}, \"method\": \"deploy\"}",
        ],
        &["--max-steps", "5000"],
    );
    assert_eq!(replies.len(), 4, "{replies:?}");
    assert_eq!(replies[1]["ok"], true, "{replies:?}");
    assert_eq!(replies[2]["ok"], false, "{replies:?}");
    assert!(replies[2]["error"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(replies[3]["ok"], false, "{replies:?}");
    assert_eq!(replies[3]["exception"]["class"], "StepLimitExceeded");
}

const CYCLE_A: &str = "Name: demo.A\nExtends: demo.B\n";
const CYCLE_B: &str = "Name: demo.B\nExtends: demo.A\n";

#[test]
fn cyclic_extends_is_an_error_everywhere() {
    let main =
        "Name: demo.Main\nExtends: demo.A\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n";
    let dir = package(&[
        ("demo.Main", "Main.yaml", main),
        ("demo.A", "A.yaml", CYCLE_A),
        ("demo.B", "B.yaml", CYCLE_B),
    ]);
    let out = vetro(&["run", ".", "--model", "model.json"], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("demo.A"), "{}", out.stderr);
    assert!(!out.stderr.contains("overflow"), "{}", out.stderr);
    let out = vetro(&["check", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("cycl") || out.stderr.contains("cycl"));

    let own =
        "Name: demo.Main\nExtends: demo.Main\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n";
    let dir = package(&[("demo.Main", "Main.yaml", own)]);
    let out = vetro(&["run", ".", "--model", "model.json"], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let out = vetro(&["check", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);

    let tests = "Namespaces:\n  =: demo\n  t: io.murano.test\nName: Tests\nExtends: [t:TestFixture, A]\nMethods:\n  testA:\n    Body:\n      - $x: 1\n";
    let dir = package(&[
        ("demo.Tests", "Tests.yaml", tests),
        ("demo.A", "A.yaml", CYCLE_A),
        ("demo.B", "B.yaml", CYCLE_B),
    ]);
    let out = vetro(&["test", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
}

#[test]
fn check_rejects_packages_that_cannot_load() {
    let named_other = "Name: demo.Other\n";
    let dir = package(&[("demo.Main", "Main.yaml", named_other)]);
    let out = vetro(&["check", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(all.contains("demo.Other"), "{all}");

    let dir = package(&[("demo.Main", "Main.yaml", "")]);
    let out = vetro(&["check", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(all.contains("Main.yaml"), "{all}");

    let dir = package(&[("demo.Main", "../outside.yaml", "")]);
    std::fs::write(dir.path().join("outside.yaml"), "Name: demo.Main\n").unwrap();
    let out = vetro(&["check", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(all.contains("outside"), "{all}");
}

#[test]
fn deep_recursion_works_and_deeper_ends_with_the_recursion_error() {
    let class = "Name: demo.Main\nMethods:\n  deploy:\n    Body:\n      - Return: $.down(9998)\n  deeper:\n    Body:\n      - Return: $.down(50000)\n  down:\n    Arguments:\n      - n: {Contract: $.int()}\n    Body:\n      - If: $n = 0\n        Then:\n          - Return: 0\n      - Return: $.down($n - 1) + 1\n";
    let dir = package(&[("demo.Main", "Main.yaml", class)]);
    let out = vetro(
        &["run", ".", "--model", "model.json", "--format", "json"],
        dir.path(),
        None,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["result"], 9998);
    let out = vetro(
        &["run", ".", "--model", "model.json", "--method", "deeper"],
        dir.path(),
        None,
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("RecursionError"), "{}", out.stderr);
}

#[test]
fn text_output_shows_the_result_and_the_model_once() {
    let dir = package(&[(
        "demo.Main",
        "Main.yaml",
        &main_class("      - Return: [1, 2]\n"),
    )]);
    let out = vetro(&["run", ".", "--model", "model.json"], dir.path(), None);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stdout.matches("\"m1\"").count(), 1, "{}", out.stdout);
    assert!(out.stdout.contains("result: [1,2]"), "{}", out.stdout);
}

#[test]
fn models_with_and_without_objects_both_run() {
    let dir = package(&[("demo.Main", "Main.yaml", &main_class("      - Return: 7\n"))]);
    std::fs::write(
        dir.path().join("env.json"),
        r#"{"Objects": {"?": {"id": "m1", "type": "demo.Main"}}}"#,
    )
    .unwrap();
    for model in ["model.json", "env.json"] {
        let out = vetro(
            &["run", ".", "--model", model, "--format", "json"],
            dir.path(),
            None,
        );
        assert_eq!(out.code, Some(0), "{model}: {}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["result"], 7, "{model}");
    }
}

#[test]
fn integers_beyond_64_bits_in_a_model_are_kept_or_refused() {
    let class = "Name: demo.Main\nProperties:\n  n: {Contract: $}\nMethods:\n  deploy:\n    Body:\n      - Return: $.n\n";
    let dir = package(&[("demo.Main", "Main.yaml", class)]);
    std::fs::write(
        dir.path().join("big.json"),
        r#"{"?": {"id": "m1", "type": "demo.Main"}, "n": 1180591620717411303424}"#,
    )
    .unwrap();
    let out = vetro(
        &["run", ".", "--model", "big.json", "--format", "json"],
        dir.path(),
        None,
    );
    if out.code == Some(0) {
        assert!(
            out.stdout.contains("1180591620717411303424"),
            "{}",
            out.stdout
        );
    } else {
        // Invalid input (exit 1), reported as JSON data with --format json.
        assert_eq!(out.code, Some(1), "{}", out.stderr);
        let error: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains("big.json:1:"), "{message}");
        assert!(message.contains("64"), "{message}");
    }
    assert!(
        !out.stdout.contains("9223372036854775807"),
        "{}",
        out.stdout
    );
}

#[test]
fn cloud_state_that_is_not_vetro_state_is_refused_and_kept() {
    let dir = package(&[("demo.Main", "Main.yaml", &main_class("      - Return: 1\n"))]);
    let data = r#"{"stacks": [1, 2, 3], "mine": "precious"}"#;
    for content in [data, "[]", "not json"] {
        std::fs::write(dir.path().join("state.json"), content).unwrap();
        let out = vetro(
            &[
                "run",
                ".",
                "--model",
                "model.json",
                "--cloud-state",
                "state.json",
            ],
            dir.path(),
            None,
        );
        assert_eq!(out.code, Some(2), "{content}: {}", out.stderr);
        assert!(out.stderr.contains("state.json"), "{}", out.stderr);
        let kept = std::fs::read_to_string(dir.path().join("state.json")).unwrap();
        assert_eq!(kept, content);
    }
    // A state this vetro wrote is read back and rewritten.
    std::fs::remove_file(dir.path().join("state.json")).unwrap();
    for _ in 0..2 {
        let out = vetro(
            &[
                "run",
                ".",
                "--model",
                "model.json",
                "--cloud-state",
                "state.json",
            ],
            dir.path(),
            None,
        );
        assert_eq!(out.code, Some(0), "{}", out.stderr);
    }
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("state.json")).unwrap())
            .unwrap();
    assert_eq!(state["format"], "vetro-simulated-cloud");
    assert_eq!(state["version"], 1);
}

#[test]
fn a_class_file_naming_another_class_points_at_its_name() {
    let text = "Namespaces:\n  =: demo.Main\nName: Main\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n";
    let dir = package(&[("demo.Main", "Main.yaml", text)]);
    let out = vetro(&["check", "."], dir.path(), None);
    assert_eq!(out.code, Some(1), "{}{}", out.stdout, out.stderr);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains(
            "the manifest maps demo.Main to Classes/Main.yaml, which defines demo.Main.Main"
        ),
        "{all}"
    );
    assert!(all.contains("Main.yaml:3:1"), "{all}");
}
