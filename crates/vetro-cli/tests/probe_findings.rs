//! Defects found by the hostile-input probe campaign (`scripts/probes.py`):
//! `vetro run` reads models as the other JSON readers do, keeps `--format
//! json` on its error paths, ends quietly in a closed pipe in `--batch` mode,
//! `vetro test` exits 2 when a package cannot be read, policy errors
//! that quote a long rule are clipped, and `serve` and `worker` refuse a
//! `--policy` file that does not compile at startup.

use assert_cmd::Command;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

const WEBSERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/murano/webserver"
);

fn vetro(args: &[&str], dir: &Path) -> std::process::Output {
    Command::cargo_bin("vetro")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

#[test]
fn a_model_with_a_duplicate_key_is_refused_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("model.json"),
        r#"{"?": {"id": "e1", "type": "io.murano.Environment"}, "name": "a", "name": "b"}"#,
    )
    .unwrap();
    let out = vetro(&["run", WEBSERVER, "--model", "model.json"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("model.json:1:67: duplicate key `name`"),
        "{stderr}"
    );
}

#[test]
fn a_model_that_is_not_utf8_is_refused_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("model.json"),
        b"{\"?\": {\"id\": \"e1\", \"type\": \"io.murano.Environment\"},\n \"name\": \"caf\xff\"}",
    )
    .unwrap();
    let out = vetro(&["run", WEBSERVER, "--model", "model.json"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("model.json:2:"), "{stderr}");
}

#[test]
fn run_errors_are_json_with_format_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("Classes")).unwrap();
    std::fs::write(
        dir.path().join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.pkg\nVersion: 1.0.0\nClasses:\n  demo.Main: Main.yaml\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Classes/Main.yaml"),
        "Name: demo.Main\nExtends: demo.Main\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("model.json"),
        r#"{"?": {"id": "m1", "type": "demo.Main"}}"#,
    )
    .unwrap();
    let cases: [(&[&str], i32); 3] = [
        (
            &["run", ".", "--model", "model.json", "--format", "json"],
            1,
        ),
        (
            &["run", ".", "--model", "missing.json", "--format", "json"],
            2,
        ),
        (
            &[
                "run",
                ".",
                "--model",
                "model.json",
                "--action",
                "x",
                "--format",
                "json",
            ],
            2,
        ),
    ];
    for (args, code) in cases {
        let out = vetro(args, dir.path());
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e})"));
        assert_eq!(answer["ok"], false, "{answer}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn batch_mode_ends_quietly_in_a_closed_pipe() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("vetro"))
        .args(["run", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    let lines = "{\"op\": \"finalize\", \"session\": 1}\n".repeat(20_000);
    // The engine may stop reading once its output is gone.
    let _ = stdin.write_all(lines.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn test_of_a_package_that_cannot_be_read_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["text", "json"] {
        let out = vetro(&["test", "no-such-package", "--format", format], dir.path());
        assert_eq!(out.status.code(), Some(2), "{format}");
    }
}

#[test]
fn a_policy_error_quoting_a_long_rule_is_clipped() {
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<String> = (0..20_000).map(|i| format!("n{i}(x)")).collect();
    std::fs::write(
        dir.path().join("rules.dl"),
        format!("p(x) :- {}\n", body.join(", ")),
    )
    .unwrap();
    let out = vetro(
        &[
            "policy", "eval", "--rules", "rules.dl", "--kind", "database", "--query", "p(x)",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.len() < 2000, "{} bytes on stderr", stderr.len());
    assert!(stderr.contains("more bytes)"), "{stderr}");
}

#[test]
fn serve_and_worker_refuse_a_policy_that_does_not_compile() {
    let dir = tempfile::tempdir().unwrap();
    // One long line that is not a policy: refused at its first tokens.
    std::fs::write(
        dir.path().join("policy.dl"),
        format!("a: [{}\n", "x, ".repeat(1_000_000)),
    )
    .unwrap();
    let db = format!("sqlite://{}", dir.path().join("v.db").display());
    let serve = ["serve", "--listen", "127.0.0.1:0", "--workers", "0"];
    for cmd in [&serve[..], &["worker"]] {
        let args = [cmd, &["--db", &db, "--policy", "policy.dl"]].concat();
        let out = vetro(&args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {stderr}");
        assert!(stderr.len() < 2000, "{} bytes on stderr", stderr.len());
        assert!(
            stderr.contains("policy.dl:1:4: the policy does not compile"),
            "{stderr}"
        );
    }
}

#[test]
fn yaql_batch_cases_stop_at_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let cases = concat!(
        r#"{"id": 1, "expr": "range(64).aggregate($1 + $1, 'x')"}"#,
        "\n",
        r#"{"id": 2, "expr": "1 + 1"}"#,
        "\n"
    );
    let start = std::time::Instant::now();
    let out = Command::cargo_bin("vetro")
        .unwrap()
        .current_dir(dir.path())
        .args(["yaql", "--batch", "--max-memory", "64"])
        .write_stdin(cases)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let answers: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(answers[0].get("error").is_some(), "{}", answers[0]);
    assert_eq!(answers[1]["value"], 2);
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_bad_tosca_grammar_is_reported_as_json_with_format_json() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("grammar.yaml"), b"type: map\nx: \xff\n").unwrap();
    let template = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/tosca/service.yaml"
    );
    let out = vetro(
        &[
            "tosca",
            "validate",
            template,
            "--grammar",
            "grammar.yaml",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let problems: serde_json::Value =
        serde_json::from_slice(&out.stderr).unwrap_or_else(|e| panic!("stderr is not JSON ({e})"));
    assert_eq!(problems[0]["kind"], "encoding", "{problems}");
}
