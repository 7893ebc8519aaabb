//! `vetro plugin add|list|remove` and `vetro ir NAME`: the registry (with
//! `--workspace` and `$XDG_DATA_HOME`), dry runs, `-o FILE`, answers files,
//! errors with positions and exit codes.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/infrared/hello")
}

fn vetro() -> Command {
    let mut cmd = Command::cargo_bin("vetro").expect("binary");
    cmd.env_remove("XDG_DATA_HOME")
        .env_remove("VETRO_ANSIBLE_PLAYBOOK");
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn registry_add_list_remove() {
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path().to_str().unwrap();
    let out = vetro()
        .args(["plugin", "add", "--workspace", w])
        .arg(example())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("installed plugin 'hello' (other) from "));
    let again = vetro()
        .args(["plugin", "add", "--workspace", w])
        .arg(example())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("error[plugin_exists]"),
        "{}",
        text(&again.stderr)
    );

    let list = vetro()
        .args(["plugin", "list", "--workspace", w, "--format", "json"])
        .output()
        .unwrap();
    let items: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(items[0]["name"], "hello");
    assert_eq!(items[0]["type"], "other");
    assert_eq!(
        items[0]["description"],
        "Write a greeting into a file on localhost"
    );

    let out_file = ws.path().join("g.txt");
    let run = vetro()
        .args(["ir", "--workspace", w, "hello", "--dry-run", "--out-file"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    let vars = text(&run.stdout);
    assert!(
        vars.starts_with("other:\n  greeting:\n    name: world\n"),
        "{vars}"
    );

    let rm = vetro()
        .args(["plugin", "remove", "--workspace", w, "hello"])
        .output()
        .unwrap();
    assert!(rm.status.success());
    let gone = vetro()
        .args(["ir", "--workspace", w, "hello"])
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(2));
    assert!(
        text(&gone.stderr).contains("no plugin named 'hello'"),
        "{}",
        text(&gone.stderr)
    );
    let rm_again = vetro()
        .args(["plugin", "remove", "--workspace", w, "hello"])
        .output()
        .unwrap();
    assert_eq!(rm_again.status.code(), Some(2));
}

#[test]
fn registry_lives_in_xdg_data_home() {
    let data = tempfile::tempdir().unwrap();
    let out = vetro()
        .env("XDG_DATA_HOME", data.path())
        .args(["plugin", "add"])
        .arg(example())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ini = std::fs::read_to_string(data.path().join("vetro/plugins.ini")).unwrap();
    assert!(ini.contains("[other]\nhello = "), "{ini}");
    let list = vetro()
        .env("XDG_DATA_HOME", data.path())
        .args(["plugin", "list"])
        .output()
        .unwrap();
    assert!(
        text(&list.stdout)
            .starts_with("NAME   TYPE   DESCRIPTION / PATH\nhello  other  Write a greeting"),
        "{}",
        text(&list.stdout)
    );
}

#[test]
fn output_file_and_answers_files() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = example();
    let run = vetro()
        .current_dir(dir.path())
        .arg("ir")
        .arg(&plugin)
        .args([
            "--out-file",
            "x.txt",
            "--dry-run",
            "-o",
            "vars.yml",
            "-e",
            "other.extra=1",
        ])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(run.stdout.is_empty());
    let written = std::fs::read_to_string(dir.path().join("vars.yml")).unwrap();
    assert!(written.contains("  extra: \"1\"\n"), "{written}");

    let gen = vetro()
        .current_dir(dir.path())
        .arg("ir")
        .arg(&plugin)
        .args(["--out-file", "x.txt", "--generate-answers-file", "a.ini"])
        .output()
        .unwrap();
    assert!(gen.status.success(), "{}", text(&gen.stderr));
    let from = vetro()
        .current_dir(dir.path())
        .arg("ir")
        .arg(&plugin)
        .args(["--from-file", "a.ini", "--dry-run"])
        .output()
        .unwrap();
    assert!(from.status.success(), "{}", text(&from.stderr));
    assert!(
        text(&from.stdout).contains(&format!("file: {}/x.txt", dir.path().display()))
            || text(&from.stdout).contains("file: x.txt")
    );
}

#[test]
fn errors_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plugin.spec"),
        "config:\n  plugin_type: test\nsubparsers:\n  t:\n    description: d\n    options:\n      a: {type: Nope}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("main.yml"), "[]\n").unwrap();
    let out = vetro()
        .arg("ir")
        .arg(dir.path().join("."))
        .arg("--dry-run")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("error[spec_error]: unknown type 'Nope' of option 'a'"),
        "{err}"
    );
    assert!(err.contains("plugin.spec:7:17"), "{err}");

    let json = vetro()
        .args(["ir", "--format", "json"])
        .arg(dir.path().join("."))
        .output()
        .unwrap();
    let diags: serde_json::Value = serde_json::from_slice(&json.stderr).expect("JSON diagnostics");
    assert!(diags.to_string().contains("spec_error"), "{diags}");
    let missing = vetro()
        .arg("ir")
        .arg(example())
        .arg("--dry-run")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains(
        "error[missing_required]: Required options are not set:\n * [hello]: 'out-file'"
    ));
    let usage = vetro()
        .arg("ir")
        .arg(example())
        .args(["--out-mode", "0777", "--out-file", "x"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(text(&usage.stderr).contains("error[invalid_choice]"));
}

#[test]
fn help_is_generated_from_the_spec() {
    let out = vetro()
        .arg("ir")
        .arg(example())
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = text(&out.stdout);
    assert!(
        help.starts_with("usage: vetro ir hello [-h] [options]\n"),
        "{help}"
    );
    assert!(help.contains("\nOutput:\n  --out-file OUT-FILE     The file to write\n                          This argument is required.\n"), "{help}");
    assert!(
        help.contains("\nAnswers file:\n  --from-file FROM-FILE"),
        "{help}"
    );
}
