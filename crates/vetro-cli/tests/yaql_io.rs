//! `vetro yaql` input and output: plain data files (no protocol tags, exact
//! integers, duplicate keys refused), NaN and infinities, I/O errors as
//! JSON, a closed stdout, and a batch line that is not UTF-8.

use assert_cmd::Command;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

fn vetro() -> Command {
    Command::cargo_bin("vetro").expect("the vetro binary is built")
}

fn write(dir: &Path, name: &str, text: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path.display().to_string()
}

#[test]
fn data_files_are_plain_json_and_tag_keys_stay_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "d.json", br#"{"$set": [1, 1], "$tuple": [2]}"#);
    vetro()
        .args(["yaql", "--data", &file, "$.keys()"])
        .assert()
        .success()
        .stdout("[\n  \"$set\",\n  \"$tuple\"\n]\n");
    vetro()
        .args(["yaql", "--data", &file, "$.get('$set').len()"])
        .assert()
        .success()
        .stdout("2\n");
}

#[test]
fn yaml_data_files_are_plain_too() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "d.yaml", b"$set: [1]\n");
    vetro()
        .args(["yaql", "--data", &file, "$.keys()"])
        .assert()
        .success()
        .stdout("[\n  \"$set\"\n]\n");
}

#[test]
fn data_files_with_a_byte_order_mark_are_read_and_binary_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "bom.json", b"\xEF\xBB\xBF{\"a\": 1}");
    vetro()
        .args(["yaql", "--data", &file, "$.a"])
        .assert()
        .success()
        .stdout("1\n");
    let file = write(dir.path(), "nul.json", b"{\"a\": 1}\0");
    let out = vetro()
        .args(["yaql", "--data", &file, "$.a"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("binary file"), "{err}");
}

#[test]
fn integers_beyond_64_bits_stay_exact() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "d.json",
        b"{\"a\": 123456789012345678901234567890}",
    );
    vetro()
        .args(["yaql", "--data", &file, "$.a + 1"])
        .assert()
        .success()
        .stdout("123456789012345678901234567891\n");
    vetro()
        .args(["yaql", "pow(2, 100)", "--format", "yaml"])
        .assert()
        .success()
        .stdout("1267650600228229401496703205376\n");
    vetro()
        .args(["yaql", "--set", "n=18446744073709551617", "$n - 1"])
        .assert()
        .success()
        .stdout("18446744073709551616\n");
}

#[test]
fn nan_and_infinity_are_printed_as_such() {
    vetro()
        .args(["yaql", "[float('nan'), float('inf'), -float('inf')]"])
        .assert()
        .success()
        .stdout("[\n  NaN,\n  Infinity,\n  -Infinity\n]\n");
    vetro()
        .args(["yaql", "[float('nan'), float('inf')]", "--format", "yaml"])
        .assert()
        .success()
        .stdout("- .nan\n- .inf\n");
}

#[test]
fn duplicate_keys_in_json_data_are_refused_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "d.json", b"{\"a\": 1,\n \"a\": 2}");
    let out = vetro()
        .args(["yaql", "--data", &file, "$.a"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("d.json:2:"), "{stderr}");
    assert!(stderr.to_lowercase().contains("duplicate"), "{stderr}");
}

#[test]
fn io_errors_follow_format_json() {
    let out = vetro()
        .args([
            "yaql",
            "--data",
            "/nonexistent/d.json",
            "$",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(j["error"]["kind"], "io");
    assert!(j["error"]["message"]
        .as_str()
        .unwrap()
        .contains("/nonexistent/d.json"));
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let bin = assert_cmd::cargo::cargo_bin("vetro");
    let mut child = std::process::Command::new(bin)
        .args(["yaql", "range(200000).toList()"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // stdout is closed here, with most of the output unread.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101));
}

#[test]
fn a_batch_line_that_is_not_utf8_is_answered_and_the_batch_goes_on() {
    let bin = assert_cmd::cargo::cargo_bin("vetro");
    let mut child = std::process::Command::new(bin)
        .args(["yaql", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"{\"id\": 1, \"expr\": \"1 + 1\"}\n")
            .unwrap();
        stdin
            .write_all(b"{\"id\": 2, \"expr\": \"'\xff'\"}\n")
            .unwrap();
        stdin
            .write_all(b"{\"id\": 3, \"expr\": \"2 + 2\"}\n")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert_eq!(answers[0]["value"], 2);
    assert_eq!(answers[1]["id"], 2);
    assert!(answers[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("UTF-8"));
    assert_eq!(answers[2]["value"], 4);
}

#[test]
fn calls_of_undefined_functions_are_reported_with_their_position() {
    // Not reached: the answer, and a warning where the call is.
    vetro()
        .args(["yaql", "false and nosuch(1)"])
        .assert()
        .success()
        .stdout("false\n")
        .stderr(
            "warning: no_function: Unknown function \"nosuch\"\n  false and nosuch(1)\n            ^\n",
        );
    // Reached: the error alone, then the other undefined calls.
    let out = vetro()
        .args(["yaql", "--format", "json", "nosuch() + 2.other()"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("\"no_function\"") && stdout.contains("\"position\":0"),
        "{stdout}"
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr.trim(),
        r#"{"warning":{"kind":"no_method","message":"Unknown method \"other\"","position":13}}"#
    );
    // A function the expression defines when it runs is no warning.
    vetro()
        .args(["yaql", "def(twice, $ * 2) -> twice(4)"])
        .assert()
        .success()
        .stdout("8\n")
        .stderr("");
}
