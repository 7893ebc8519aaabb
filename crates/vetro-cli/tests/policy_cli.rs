//! `vetro policy`: limits, deep proofs, the batch protocol, exit codes,
//! positions and model shapes.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn vetro() -> Command {
    Command::cargo_bin("vetro").expect("the vetro binary is built")
}

fn write(dir: &Path, name: &str, text: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path.display().to_string()
}

fn repo(path: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join(path).display().to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_cross_product_stops_at_the_tuple_limit() {
    let dir = tempfile::tempdir().unwrap();
    let facts: String = (0..300).map(|i| format!("p({i})\n")).collect();
    let rules = write(
        dir.path(),
        "r.dl",
        format!("{facts}q(x, y, z) :- p(x), p(y), p(z)\n").as_bytes(),
    );
    let out = vetro()
        .args(["policy", "eval", "--rules", &rules, "--query", "q(x, y, z)"])
        .args(["--max-tuples", "100000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("error: limit:") && err.contains("100000"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn an_evaluation_stops_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let facts: String = (0..400).map(|i| format!("p({i})\n")).collect();
    let rules = write(
        dir.path(),
        "r.dl",
        format!("{facts}q(x) :- p(x), p(y), p(z), p(w), lt(x, y), lt(y, z), lt(z, w), lt(w, 0)\n")
            .as_bytes(),
    );
    let out = vetro()
        .args(["policy", "eval", "--rules", &rules, "--query", "q(x)"])
        .args(["--timeout", "0.5"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("longer than 0.500 s"));
}

#[test]
fn timeouts_that_are_not_positive_numbers_are_usage_errors() {
    for bad in ["inf", "nan", "-1", "0", "1e308"] {
        let out = vetro()
            .args(["policy", "eval", "--query", "p(x)", "--timeout", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(!text(&out.stderr).contains("panicked"), "{bad}");
    }
}

/// A model with one object and a rule chain `c0 :- c1 :- ... :- properties`.
fn deep_chain(dir: &Path, depth: usize) -> (String, String) {
    let model = write(
        dir,
        "m.yaml",
        b"'?': {id: env, type: io.murano.Environment}\nname: x\n",
    );
    let mut rules = String::from("c0(o) :- murano:properties(o, \"name\", v)\n");
    for i in 1..depth {
        rules.push_str(&format!("c{i}(o) :- c{}(o)\n", i - 1));
    }
    rules.push_str(&format!(
        "predeploy_errors(o, o, \"deep\") :- c{}(o)\n",
        depth - 1
    ));
    (model, write(dir, "deep.dl", rules.as_bytes()))
}

#[test]
fn explain_follows_rule_chains_thousands_deep() {
    let dir = tempfile::tempdir().unwrap();
    let (model, rules) = deep_chain(dir.path(), 6000);
    let out = vetro()
        .args(["policy", "explain", &model, "--policy", &rules])
        .args(["--atom", "predeploy_errors(\"env\", \"env\", \"deep\")"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let proof = text(&out.stdout);
    assert_eq!(proof.lines().count(), 6002);
    assert!(proof
        .lines()
        .last()
        .unwrap()
        .contains("murano:properties(\"env\", \"name\", \"x\")    [fact]"));
}

#[test]
fn batch_answers_an_invalid_utf8_line_and_goes_on() {
    let input = b"{\"id\": 1, \"kind\": \"parse\", \"text\": \"p(1)\"}\n\xff\xfe\n{\"id\": 2, \"kind\": \"parse\", \"text\": \"q(2)\"}\n";
    let out = vetro()
        .args(["policy", "eval", "--batch"])
        .write_stdin(input.to_vec())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["error"], "syntax");
    assert_eq!(lines[2]["result"][0], "q(2)");
}

#[test]
fn rule_syntax_errors_exit_1_with_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let rules = write(dir.path(), "bad.dl", b"p(1)\nq(x) :- )\n");
    let out = vetro()
        .args(["policy", "eval", "--rules", &rules, "--query", "p(x)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("error: syntax: "), "{err}");
    assert!(err.contains("bad.dl:2:"), "{err}");

    let out = vetro()
        .args(["policy", "eval", "--rules", &rules, "--query", "p(x)"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let diags: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(diags[0]["kind"], "syntax");
    assert_eq!(diags[0]["location"]["line"], 2);
}

#[test]
fn policy_files_that_are_not_utf8_are_refused_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let rules = write(dir.path(), "r.dl", b"p(\"caf\xe9\")\n");
    let out = vetro()
        .args(["policy", "eval", "--rules", &rules, "--query", "p(x)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("r.dl:1:7: not UTF-8 text"), "{err}");
}

#[test]
fn validate_exit_code_and_group_report() {
    let model = repo("examples/policy/model.json");
    let rules = repo("examples/policy/rules.dl");
    let out = vetro()
        .args(["policy", "validate", &model, "--policy", &rules])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let found = text(&out.stdout);
    assert!(
        found.contains(
            "predeploy_errors(\"env-demo\", \"vm-web\", \"flavor not allowed: m1.xlarge\")"
        ),
        "{found}"
    );
    let out = vetro()
        .args([
            "policy",
            "validate",
            &model,
            "--policy",
            &rules,
            "--exit-code",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = vetro()
        .args(["policy", "validate", &model, "--policy", &rules, "--group"])
        .output()
        .unwrap();
    let grouped = text(&out.stdout);
    assert!(
        grouped.contains("vm-web (io.murano.resources.LinuxMuranoInstance)"),
        "{grouped}"
    );
    assert!(grouped.contains("    flavor = m1.xlarge"), "{grouped}");
}

#[test]
fn deployment_descriptions_with_objects_are_models_too() {
    let model = repo("examples/murano/environment.json");
    let out = vetro().args(["policy", "rules", &model]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("murano:objects"));
}

#[test]
fn model_errors_name_the_file_and_duplicate_json_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = write(dir.path(), "list.json", b"[1, 2]");
    let out = vetro().args(["policy", "rules", &model]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("list.json: not an object model"));

    let model = write(
        dir.path(),
        "dup.json",
        b"{\"?\": {\"id\": \"e\", \"type\": \"T\"},\n \"name\": 1,\n \"name\": 2}",
    );
    let out = vetro().args(["policy", "rules", &model]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("duplicate key `name`") && err.contains("dup.json:3:"),
        "{err}"
    );
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    let bin = assert_cmd::cargo::cargo_bin("vetro");
    for args in [
        vec!["tosca", "types", &repo("examples/tosca/service.yaml")],
        vec!["policy", "rules", &repo("examples/murano/environment.json")],
    ] {
        let mut child = Std::new(&bin)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the command has written anything.
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            status.success() || status.code().is_none(),
            "{args:?}: {status}"
        );
    }
}
