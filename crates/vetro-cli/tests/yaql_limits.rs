//! `vetro yaql` under hostile expressions: memory and time limits hold while
//! collections are being built, and bad limit values are usage errors.

use assert_cmd::Command;
use std::time::{Duration, Instant};

fn vetro() -> Command {
    Command::cargo_bin("vetro").expect("the vetro binary is built")
}

fn error_kind(stdout: &[u8]) -> String {
    let j: serde_json::Value = serde_json::from_slice(stdout).expect("a JSON error");
    j["error"]["kind"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_huge_list_stops_at_the_memory_limit_while_it_grows() {
    let started = Instant::now();
    let out = vetro()
        .args(["yaql", "range(1000000000000).toList()"])
        .args(["--max-memory", "64", "--format", "json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(error_kind(&out.stdout), "memory_quota");
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_huge_list_stops_under_the_default_limits() {
    let out = vetro()
        .args(["yaql", "range(1000000000000).toList()"])
        .args(["--format", "json"])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(error_kind(&out.stdout), "memory_quota");
}

#[test]
fn a_long_scan_stops_at_the_timeout() {
    let started = Instant::now();
    let out = vetro()
        .args(["yaql", "range(1000000000000).where($ < 0).toList()"])
        .args(["--timeout", "0.5", "--format", "json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(error_kind(&out.stdout), "timeout");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_sort_of_a_long_sequence_stops_at_the_timeout() {
    let out = vetro()
        .args(["yaql", "range(1000000000000).orderBy(-$).first()"])
        .args(["--timeout", "0.5", "--max-memory", "0", "--format", "json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let kind = error_kind(&out.stdout);
    assert!(kind == "timeout" || kind == "memory_quota", "{kind}");
}

#[test]
fn timeouts_that_are_not_finite_are_usage_errors() {
    for bad in ["inf", "nan", "-1", "1e308", "abc"] {
        let out = vetro()
            .args(["yaql", "1", "--timeout", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--timeout {bad}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn no_timeout_with_zero() {
    vetro()
        .args(["yaql", "range(10).sum()", "--timeout", "0"])
        .assert()
        .success()
        .stdout("45\n");
}

/// A list holding the same list twice, 64 levels deep: small in memory, 2^64
/// items written out.
const SHARED: &str = "range(64).aggregate([$1, $1], [])";

#[test]
fn a_result_sharing_its_lists_is_not_written_past_the_memory_limit() {
    for format in ["json", "yaml"] {
        let started = Instant::now();
        let out = vetro()
            .args([
                "yaql",
                "--max-memory",
                "64",
                "--format",
                format,
                "--",
                SHARED,
            ])
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}: {out:?}");
        if format == "json" {
            assert_eq!(error_kind(&out.stdout), "memory_quota");
        } else {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains("too much memory"), "{stderr}");
        }
        assert!(started.elapsed() < Duration::from_secs(20));
    }
    vetro()
        .args([
            "yaql",
            "--max-memory",
            "64",
            "--",
            "range(3).aggregate([$1, $1], [])",
        ])
        .assert()
        .success();
}

#[test]
fn strings_built_in_one_call_stop_at_the_memory_limit() {
    for expr in [
        &format!("str({SHARED}).len()") as &str,
        "range(40).aggregate($1.replace('x', 'xx'), 'x')",
        "'{0:>1000000000}'.format(1)",
    ] {
        let started = Instant::now();
        let out = vetro()
            .args(["yaql", "--max-memory", "64", "--format", "json", "--", expr])
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{expr}: {out:?}");
        assert_eq!(error_kind(&out.stdout), "memory_quota", "{expr}");
        assert!(started.elapsed() < Duration::from_secs(20), "{expr}");
    }
}

#[test]
fn a_batch_answer_sharing_its_lists_is_an_error_and_the_batch_goes_on() {
    let input = format!(
        "{}\n{}\n",
        serde_json::json!({"id": 1, "expr": SHARED}),
        serde_json::json!({"id": 2, "expr": "1 + 1"})
    );
    let out = vetro()
        .args(["yaql", "--batch", "--max-memory", "64"])
        .write_stdin(input)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(answers[0]["error"]["kind"], "memory_quota");
    assert_eq!(answers[1]["value"], 2);
}

/// Compiled regular expressions kept between the lines of a batch stay
/// small: each of these patterns compiles to about 8 MB, and a cache of a
/// thousand patterns kept them all (150 lines held over 1 GB under
/// `--max-memory 64`, each line within its own limit). The run is held to
/// 400 MiB of address space.
#[cfg(target_os = "linux")]
#[test]
fn regexes_kept_between_batch_lines_stay_small() {
    let input: String = (0..150)
        .map(|i| {
            let expr = format!("regex('(a|b){{20000}}{i}').matches('ab')");
            format!("{}\n", serde_json::json!({"id": i, "expr": expr}))
        })
        .collect();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", 400 << 10))
        .arg(assert_cmd::cargo::cargo_bin("vetro"))
        .args(["yaql", "--batch", "--max-memory", "64"])
        .write_stdin(input)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let answers = String::from_utf8_lossy(&out.stdout);
    assert_eq!(answers.lines().count(), 150, "{answers}");
    assert!(
        answers.lines().all(|l| l.contains("\"value\":false")),
        "{answers}"
    );
}
