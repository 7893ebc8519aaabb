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
