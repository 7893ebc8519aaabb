//! `vetro murano model`: object models from a package's forms and answers,
//! deployed by `vetro run`; `vetro check` on UI definitions.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/murano/webserver")
}

fn vetro() -> Command {
    Command::cargo_bin("vetro").unwrap()
}

fn model(pkg: &Path, answers: &str) -> (i32, String, String) {
    let out = vetro()
        .args(["murano", "model"])
        .arg(pkg)
        .args(["--answers", "-", "--environment", "demo"])
        .write_stdin(answers)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A package with one class and the given UI definition.
fn package(dir: &Path, ui: &str) -> PathBuf {
    let root = dir.join("pkg");
    std::fs::create_dir_all(root.join("Classes")).unwrap();
    std::fs::create_dir_all(root.join("UI")).unwrap();
    std::fs::write(
        root.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Application\nFullName: io.test.App\nName: Test app\nClasses:\n  io.test.App: App.yaml\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Classes/App.yaml"),
        "Namespaces:\n  =: io.test\n  std: io.murano\nName: App\nExtends: std:Application\nProperties:\n  size:\n    Contract: $.int()\nMethods:\n  deploy:\n    Body:\n      - Return: $.size\n",
    )
    .unwrap();
    std::fs::write(root.join("UI/ui.yaml"), ui).unwrap();
    root
}

#[test]
fn the_example_model_deploys_as_it_is() {
    let (code, out, err) = model(
        &example(),
        "instanceConfiguration: {osImage: ubuntu-22.04}\nappConfiguration: {port: 8080}\n",
    );
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    let app = &m["Objects"]["applications"][0];
    assert_eq!(m["Objects"]["name"], "demo");
    assert_eq!(app["?"]["type"], "io.vetro.examples.WebServer");
    assert_eq!(app["port"], 8080);
    assert_eq!(app["instance"]["image"], "sim-image-ubuntu-22.04");
    assert_eq!(app["instance"]["flavor"], "m1.medium");
    assert_eq!(app["instance"]["name"], "web-1");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.json");
    std::fs::write(&path, out).unwrap();
    let run = vetro()
        .arg("run")
        .arg(example())
        .arg("--model")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn a_missing_required_answer_names_the_form_field_and_rule() {
    let (code, _, err) = model(&example(), "{}");
    assert_eq!(code, 1);
    assert!(
        err.contains("instanceConfiguration.osImage (required)"),
        "{err}"
    );
}

#[test]
fn answers_of_the_wrong_type_are_refused() {
    let (code, _, err) = model(
        &example(),
        "appConfiguration: {port: [80]}\ninstanceConfiguration: {osImage: ubuntu-22.04}\n",
    );
    assert_eq!(code, 1);
    assert!(err.contains("appConfiguration.port (type)"), "{err}");
    let (code, _, err) = model(&example(), "appConfiguration: {siteName: Hello World}\ninstanceConfiguration: {osImage: ubuntu-22.04}\n");
    assert_eq!(code, 1);
    assert!(
        err.contains("appConfiguration.siteName (regexpValidator): Lower-case letters"),
        "{err}"
    );
    let (code, _, err) = model(&example(), "nosuchform: {}\n");
    assert_eq!(code, 1);
    assert!(err.contains("there is no form \"nosuchform\""), "{err}");
    let (code, _, err) = model(
        &example(),
        "appConfiguration: {colour: red}\ninstanceConfiguration: {osImage: ubuntu-22.04}\n",
    );
    assert_eq!(code, 1);
    assert!(err.contains("colour (unknown)"), "{err}");
}

/// The error of a form whose one field has validator `expr`, which must stop
/// at a limit well within 20 s.
fn stopped_validator(expr: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let ui = format!("Version: 2.2\nApplication:\n  ?: {{type: io.test.App}}\n  size: $.f.size\nForms:\n  - f:\n      fields:\n        - name: size\n          type: integer\n          initial: 3\n          validators:\n            - expr: {expr}\n              message: never\n");
    let pkg = package(dir.path(), &ui);
    let started = Instant::now();
    let (code, _, err) = model(&pkg, "{}");
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(code, 1);
    assert!(
        err.contains("f.size (validators[0]): the validator could not run"),
        "{err}"
    );
    err
}

#[test]
fn a_looping_validator_stops_at_a_limit() {
    stopped_validator("range(1000000000000).where($ < 0).any()");
}

#[test]
fn an_allocating_validator_stops_at_the_memory_limit() {
    // Doubles a string forty times: a terabyte if nothing stopped it.
    let err = stopped_validator("len(range(40).aggregate($1 + $1, 'ab')) > 0");
    assert!(err.contains("memory"), "{err}");
}

#[test]
fn check_reports_a_broken_ui_definition_with_positions() {
    let dir = tempfile::tempdir().unwrap();
    let ui = "Version: 2.2\nApplication:\n  ?: {type: io.test.App}\n  size: $.f.sise\n  other: $.g.x\nForms:\n  - f:\n      fields:\n        - name: size\n          type: integr\n        - name: n\n          type: string\n          initial: !yaql '$.('\n";
    let pkg = package(dir.path(), ui);
    let out = vetro().arg("check").arg(&pkg).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown type \"integr\""), "{err}");
    assert!(err.contains("ui.yaml:10:17"), "{err}");
    assert!(err.contains("ui-yaql-syntax"), "{err}");
    assert!(err.contains("no form named \"g\""), "{err}");
    assert!(err.contains("ui.yaml:5:12"), "{err}");
    let out = vetro()
        .args(["murano", "model"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn the_forms_can_be_listed() {
    let out = vetro()
        .args(["murano", "model", "--show-forms"])
        .arg(example())
        .output()
        .unwrap();
    assert!(out.status.success());
    let forms: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<_> = forms
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "appConfiguration",
            "instanceConfiguration",
            "workflowManagement"
        ]
    );
    let image = &forms[1]["fields"][1];
    assert_eq!(image["kind"], "image");
    assert!(image["choices"].as_array().unwrap().len() >= 2);
}

#[test]
fn a_package_without_forms_gets_one_from_its_properties() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path(), "");
    std::fs::remove_dir_all(pkg.join("UI")).unwrap();
    let (code, out, err) = model(&pkg, "appConfiguration: {size: 5}\n");
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    let app = &m["Objects"]["applications"][0];
    assert_eq!(app["?"]["type"], "io.test.App");
    assert_eq!(app["size"], 5);
    let (code, _, err) = model(&pkg, "appConfiguration: {size: many}\n");
    assert_eq!(code, 1);
    assert!(err.contains("appConfiguration.size (type)"), "{err}");
}
