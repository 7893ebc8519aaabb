//! `--agent-results`: what the simulator's agents answer, for packages that
//! read what their scripts print (here: a deployment that refuses any system
//! but the one its check script reports).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const CLASS: &str = r#"
Namespaces:
  =: io.test.agents
  std: io.murano
  res: io.murano.resources
  sys: io.murano.system
Name: App
Extends: std:Application
Properties:
  instance:
    Contract: $.class(res:Instance).notNull()
Methods:
  deploy:
    Body:
      - $.instance.deploy()
      - $resources: new(sys:Resources)
      - $os: $.instance.agent.call($resources.yaml('CheckOS.template'), $resources)
      - If: not $os.startsWith('Ubuntu')
        Then:
          - Throw: UnsupportedSystem
            Message: only Ubuntu is supported
      - $addresses: $.instance.agent.call($resources.json('AskAddress.template'), $resources)
      - $.find(std:Environment).reporter.report($this, format('{0} at {1}', $os, $addresses[0]))
  ping:
    Body:
      - $resources: new(sys:Resources)
      - Return: $.instance.agent.call($resources.yaml('CheckOS.template'), $resources)
"#;

const TEST_CLASS: &str = r#"
Namespaces:
  =: io.test.agents
  sys: io.murano.system
  res: io.murano.resources
  test: io.murano.test
  std: io.murano
Name: AppTests
Extends: test:TestFixture
Methods:
  testTheAgentAnswersFromTheFile:
    Body:
      - $env: new(std:Environment, name => t)
      - $instance: new(res:LinuxMuranoInstance, $env, name => vm, image => img, flavor => f)
      - $app: new(App, $env, instance => $instance)
      - $.assertEqual('Ubuntu 22.04 LTS', $app.ping())
"#;

const CHECK_OS: &str = "FormatVersion: 2.0.0\nVersion: 1.0.0\nName: Check OS\nBody: return check().stdout\nScripts:\n  check:\n    Type: Application\n    Version: 1.0.0\n    EntryPoint: check.sh\n    Options: {captureStdout: true}\n";
const ASK_ADDRESS: &str = r#"{"Scripts": ["Get-Address.ps1"], "Commands": [{"Name": "Get-Address", "Arguments": {}}], "RebootOnCompletion": 0}"#;

fn package(dir: &Path) -> PathBuf {
    let pkg = dir.join("pkg");
    std::fs::create_dir_all(pkg.join("Classes")).unwrap();
    std::fs::create_dir_all(pkg.join("Resources/scripts")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Application\nFullName: io.test.agents.App\nClasses:\n  io.test.agents.App: App.yaml\n  io.test.agents.AppTests: AppTests.yaml\n",
    )
    .unwrap();
    std::fs::write(pkg.join("Classes/App.yaml"), CLASS).unwrap();
    std::fs::write(pkg.join("Classes/AppTests.yaml"), TEST_CLASS).unwrap();
    std::fs::write(pkg.join("Resources/CheckOS.template"), CHECK_OS).unwrap();
    std::fs::write(pkg.join("Resources/AskAddress.template"), ASK_ADDRESS).unwrap();
    std::fs::write(pkg.join("Resources/scripts/check.sh"), "lsb_release -sd\n").unwrap();
    std::fs::write(
        pkg.join("Resources/scripts/Get-Address.ps1"),
        "'10.0.0.9'\n",
    )
    .unwrap();
    let model = r#"{"Objects": {"?": {"id": "e0", "type": "io.murano.Environment"}, "name": "t",
      "applications": [{"?": {"id": "a0", "type": "io.test.agents.App"},
        "instance": {"?": {"id": "i0", "type": "io.murano.resources.LinuxMuranoInstance"},
                     "name": "vm", "image": "ubuntu-22.04", "flavor": "m1.small"}}]}}"#;
    std::fs::write(dir.join("model.json"), model).unwrap();
    pkg
}

/// `vetro run` of the package with `extra` arguments: (exit code, stdout, stderr).
fn run(dir: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("vetro")
        .unwrap()
        .arg("run")
        .arg(package(dir))
        .arg("--model")
        .arg(dir.join("model.json"))
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn results(dir: &Path, text: &str) -> String {
    let path = dir.join("results.yaml");
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

const ANSWERS: &str =
    "- plan: Check OS\n  result: Ubuntu 22.04 LTS\n- script: Get-Address\n  result: [10.0.0.9]\n";

#[test]
fn without_results_an_agent_answers_null() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("No method \"startsWith\" matches"), "{err}");
}

#[test]
fn plans_are_answered_by_name_and_by_script() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(dir.path(), ANSWERS);
    let (code, out, err) = run(dir.path(), &["--agent-results", &r]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Ubuntu 22.04 LTS at 10.0.0.9"), "{out}");
    // The progress line says what the simulated agent answered.
    assert!(
        out.contains("execution plan \"Check OS\" (scripts: check) not executed (simulated), answered \"Ubuntu 22.04 LTS\""),
        "{out}"
    );
    assert!(out.contains("(commands: Get-Address)"), "{out}");
    assert!(!err.contains("matched no agent call"), "{err}");
}

#[test]
fn a_rule_can_fail_the_call_and_unused_rules_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(
        dir.path(),
        "- script: check.sh\n  error: no lsb_release here\n- plan: Nothing\n  result: 1\n",
    );
    let (code, out, err) = run(dir.path(), &["--agent-results", &r]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no lsb_release here"), "{err}");
    assert!(
        err.contains("results.yaml:3:3: plan \"Nothing\" matched no agent call"),
        "{err}"
    );
}

#[test]
fn a_bad_results_file_is_refused_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let r = results(dir.path(), "- plan: Check OS\n  answer: 1\n");
    let (code, _, err) = run(dir.path(), &["--agent-results", &r]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--agent-results ") && err.contains("results.yaml:2:3: unknown key"),
        "{err}"
    );
    let missing = dir.path().join("nope.yaml");
    let (code, _, err) = run(dir.path(), &["--agent-results", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope.yaml"), "{err}");
    let (code, _, err) = run(
        dir.path(),
        &["--agent-results", &r, "--backend", "openstack"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs --backend simulated"), "{err}");
}

#[test]
fn vetro_test_gives_every_test_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let pkg = package(dir.path());
    let r = results(dir.path(), ANSWERS);
    let out = Command::cargo_bin("vetro")
        .unwrap()
        .arg("test")
        .arg(&pkg)
        .args(["--agent-results", &r])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("PASS io.test.agents.AppTests.testTheAgentAnswersFromTheFile"),
        "{text}"
    );
}
