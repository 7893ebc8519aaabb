//! The host side: a deployment on the simulated cloud and the test runner,
//! over a small package written by the test itself.

use serde_json::json;
use std::path::Path;
use vetro_dsl::cloud::{EventKind, SimulatedCloud};
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::testing;

/// The package, in a directory removed when the value is dropped.
fn package(name: &str, classes: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::create_dir_all(dir.join("Resources")).unwrap();
    let mut manifest =
        format!("Format: MuranoPL/1.4\nFullName: {name}\nVersion: 1.0.0\nClasses:\n");
    for (class, text) in classes {
        let file = format!("{}.yaml", class.rsplit('.').next().unwrap());
        manifest.push_str(&format!("  {class}: {file}\n"));
        std::fs::write(dir.join("Classes").join(&file), text).unwrap();
    }
    std::fs::write(dir.join("manifest.yaml"), manifest).unwrap();
    std::fs::write(
        dir.join("Resources/plan.yaml"),
        "Name: greet\nResult: {greeting: hi}\n",
    )
    .unwrap();
    tmp
}

const APP: &str = r#"
Namespaces:
  =: demo
  std: io.murano
  res: io.murano.resources
  sys: io.murano.system
Name: App
Extends: std:Application
Properties:
  vm: {Contract: $.class(res:Instance).notNull()}
  answer: {Usage: Out, Contract: $}
Methods:
  deploy:
    Body:
      - $.vm.deploy()
      - $plan: new(sys:Resources).yaml('plan.yaml')
      - $.answer: $.vm.agent.call($plan, null)
  poke:
    Usage: Action
    Body:
      - Return: 42
"#;

fn model() -> serde_json::Value {
    json!({"Objects": {
        "?": {"id": "env1", "type": "io.murano.Environment"},
        "name": "e",
        "defaultNetworks": {"environment": {
            "?": {"id": "net1", "type": "io.murano.resources.NeutronNetwork"},
            "name": "n", "cidr": "192.168.7.0/24"}, "flat": null},
        "applications": [{"?": {"id": "app1", "type": "demo.App"},
            "vm": {"?": {"id": "vm1", "type": "io.murano.resources.Instance"},
                   "name": "vm", "image": "img"}}]}})
}

fn run(lib: &Library, model: &serde_json::Value, target: Target, method: &str) -> host::RunOutcome {
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    host::run(lib, model, &target, method, h).unwrap()
}

#[test]
fn deploy_assigns_addresses_keeps_the_template_and_reports() {
    let dir = package("demo.app", &[("demo.App", APP)]);
    let lib = Library::load(&[dir.path().to_path_buf()]);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    let out = run(&lib, &model(), Target::Root, "deploy");
    assert!(
        out.result.is_ok(),
        "{:?}",
        out.result.err().map(|e| e.message())
    );
    let app = &out.model["Objects"]["applications"][0];
    assert_eq!(app["vm"]["ipAddresses"], json!(["192.168.7.4"]));
    assert_eq!(app["answer"], json!({"greeting": "hi"}));
    let (_, template) = out.stacks.last().expect("a stack was pushed");
    assert_eq!(
        template["resources"]["vm"]["type"],
        json!("OS::Nova::Server")
    );
    assert_eq!(
        template["resources"]["n-subnet"]["properties"]["cidr"],
        json!("192.168.7.0/24")
    );
    let kinds: Vec<EventKind> = out.events.iter().map(|e| e.kind).collect();
    assert!(
        kinds.contains(&EventKind::StackPush) && kinds.contains(&EventKind::AgentCall),
        "{kinds:?}"
    );
    assert_eq!(out.events.first().map(|e| e.kind), Some(EventKind::Report));
}

#[test]
fn actions_run_only_action_methods() {
    let dir = package("demo.act", &[("demo.App", APP)]);
    let lib = Library::load(&[dir.path().to_path_buf()]);
    let first = run(&lib, &model(), Target::Root, "deploy");
    let out = run(&lib, &first.model, Target::Object("app1".into()), "poke");
    assert_eq!(out.result.ok(), Some(json!(42)));
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    let err = host::run(
        &lib,
        &first.model,
        &Target::Object("app1".into()),
        "deploy",
        h,
    )
    .unwrap()
    .result
    .err();
    assert!(err.is_some_and(|e| e.message().contains("Action")));
}

const TESTS: &str = r#"
Namespaces:
  =: demo
  test: io.murano.test
Name: Tests
Extends: test:TestFixture
Methods:
  setUp:
    Body:
      - $.x: 2
  testPasses:
    Body:
      - $.assertEqual(2, $.x)
  testFails:
    Body:
      - $.assertEqual(3, $.x)
  helper:
    Body:
      - Return: null
"#;

#[test]
fn runner_reports_pass_and_fail_per_test() {
    let dir = package("demo.tests", &[("demo.Tests", TESTS)]);
    let lib = Library::load(&[dir.path().to_path_buf()]);
    let results = testing::run_all(&lib, None);
    let names: Vec<_> = results
        .iter()
        .map(|r| (r.method.as_str(), r.failure.is_none()))
        .collect();
    assert_eq!(names, vec![("testPasses", true), ("testFails", false)]);
    let f = results[1].failure.as_ref().unwrap();
    assert!(f.message.contains("3 != 2"), "{}", f.message);
    assert!(!f.frames.is_empty());
}

#[test]
fn model_files_may_be_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.yaml");
    std::fs::write(&file, "Objects:\n  '?': {id: a, type: demo.App}\n").unwrap();
    let m = host::read_model(&file).unwrap();
    assert_eq!(m["Objects"]["?"]["id"], json!("a"));
    assert!(host::read_model(Path::new("/nonexistent/model.json")).is_err());
}

#[test]
fn volumes_are_attached_and_a_removed_environment_deletes_its_stack() {
    let dir = package("demo.vol", &[("demo.App", APP)]);
    let lib = Library::load(&[dir.path().to_path_buf()]);
    let mut m = model();
    m["Objects"]["applications"][0]["vm"]["volumes"] = json!({"/data": {
        "?": {"id": "vol1", "type": "io.murano.resources.CinderVolume"},
        "name": "data", "size": 10}});
    let out = run(&lib, &m, Target::Root, "deploy");
    assert!(
        out.result.is_ok(),
        "{:?}",
        out.result.err().map(|e| e.message())
    );
    let (_, t) = out.stacks.last().expect("a stack was pushed");
    assert_eq!(
        t["resources"]["data-volume"]["properties"]["size"],
        json!(10)
    );
    let att = &t["resources"]["data-attachment-vm"]["properties"];
    assert_eq!(att["mountpoint"], json!("/data"));
    assert_eq!(att["instance_uuid"], json!({"get_resource": "vm"}));
    // The next deployment has no environment any more: it is destroyed.
    let gone = json!({"Objects": null, "ObjectsCopy": out.model["ObjectsCopy"].clone()});
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    let r = host::run(&lib, &gone, &Target::Root, "deploy", h).unwrap();
    assert_eq!(r.result.ok(), Some(json!(null)));
    assert!(
        r.events.iter().any(|e| e.kind == EventKind::StackDelete),
        "{:?}",
        r.events
    );
}

const READER: &str = r#"
Namespaces:
  =: demo
  sys: io.murano.system
Name: Reader
Methods:
  zero:
    Body:
      - Return: new(sys:Resources).string('zero')
  fifo:
    Body:
      - Return: new(sys:Resources).string('fifo')
  folder:
    Body:
      - Return: new(sys:Resources).string('folder')
  plan:
    Body:
      - Return: new(sys:Resources).string('plan.yaml')
"#;

/// A resource that is a pipe or a device is refused, not opened: a pipe
/// would block the run past its time limit, /dev/zero would never end.
#[cfg(unix)]
#[test]
fn a_resource_that_is_not_a_regular_file_is_refused_unread() {
    let dir = package("demo.reader", &[("demo.Reader", READER)]);
    let resources = dir.path().join("Resources");
    std::os::unix::fs::symlink("/dev/zero", resources.join("zero")).unwrap();
    std::os::unix::fs::symlink(".", resources.join("folder")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(resources.join("fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let lib = Library::load(&[dir.path().to_path_buf()]);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    let model = json!({"?": {"id": "r1", "type": "demo.Reader"}});
    for method in ["zero", "fifo", "folder"] {
        let started = std::time::Instant::now();
        let Err(e) = run(&lib, &model, Target::Root, method).result else {
            panic!("the resource {method} was read")
        };
        assert!(
            e.message().contains("not a regular file"),
            "{method}: {}",
            e.message()
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
    let out = run(&lib, &model, Target::Root, "plan");
    assert_eq!(
        out.result.unwrap(),
        json!("Name: greet\nResult: {greeting: hi}\n")
    );
}
