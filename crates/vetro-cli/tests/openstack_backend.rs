//! `--backend openstack` against the real Keystone, Heat and RabbitMQ that
//! `.ci/setup.d/05-openstack.sh` starts (VETRO_TEST_CLOUDS_YAML,
//! VETRO_TEST_AMQP_URL); each test skips with a message without them, and
//! fails when they are given but something it needs is missing, so that CI
//! never skips silently.
//!
//! Nova, Neutron and Cinder cannot run on the test machine: their resources
//! become `OS::Heat::None` through the test's `--heat-environment`, and the
//! network explorer's Neutron calls go to the stand-in the services script
//! registers as the catalog's `network` service
//! (`crates/vetro-openstack/tests/support/neutron_standin.py`, which follows
//! the Neutron API and validates tokens with the real Keystone). Everything
//! else is real. The test plays each instance: it reads the server's user
//! data from the Heat stack and starts `vetro agent` with the configuration
//! in it, in a mount namespace whose /etc and /var are throw-away overlays,
//! with `apt-get` and `systemctl` stand-ins on its PATH.

use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod openstack;
use openstack::*;

/// `vetro run` of the webserver example on the test cloud.
fn vetro_run(e: &Env, dir: &Path, model: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(VETRO);
    c.args(["run", "examples/murano/webserver", "--model"])
        .arg(model);
    on_cloud(&mut c, e, Some(dir))
        .args(extra)
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn model_with_env_id(dir: &Path, id: &str) -> PathBuf {
    let text = std::fs::read_to_string(repo().join("examples/murano/environment.json")).unwrap();
    let mut m: Json = serde_json::from_str(&text).unwrap();
    m["Objects"]["?"]["id"] = json!(id);
    let path = dir.join("model.json");
    std::fs::write(&path, m.to_string()).unwrap();
    path
}

fn finish(mut child: Child, limit: Duration) -> (bool, String) {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(Some(_)) = child.try_wait() {
            let out = child.wait_with_output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            return (out.status.success(), text);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    (
        false,
        format!(
            "timed out\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Deploy the webserver example, playing its instances with agents whose
/// `apt-get` is `apt`: whether `vetro run` succeeded, its output, and the
/// agents' logs.
fn deploy_webserver(e: &Env, apt: &str) -> (bool, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let id = fresh_id();
    let stack = format!("murano-{id}");
    let api = heat_api(e);
    let model = model_with_env_id(dir.path(), &id);
    let mut run = vetro_run(e, dir.path(), &model, &[]).spawn().unwrap();
    let servers = server_configs(&api, &stack, Duration::from_secs(60), &mut || {
        matches!(run.try_wait(), Ok(None))
    });
    if servers.is_empty() {
        let (_, out) = finish(run, Duration::from_secs(1));
        delete_stack(&api, &stack);
        panic!("no server with agent user data appeared in stack {stack}:\n{out}");
    }
    let mut agents: Vec<Child> = servers
        .iter()
        .filter_map(|(n, c)| start_agent(dir.path(), n, c, apt))
        .collect();
    let (ok, out) = finish(run, Duration::from_secs(90));
    for a in agents.iter_mut() {
        let _ = a.kill();
        let _ = a.wait();
    }
    delete_stack(&api, &stack);
    (ok, out, agent_logs(dir.path(), &servers))
}

#[test]
fn webserver_deploys_through_heat_and_agents() {
    let Some(e) = env() else { return };
    require_unshare();
    require_neutron(&e);
    let _turn = heat_turn();
    let (ok, out, logs) = deploy_webserver(&e, APT_INSTALLS);
    assert!(ok, "vetro run failed:\n{out}\n{logs}");
    assert!(out.contains("[stack-push] stack murano-"), "{out}");
    assert!(
        out.contains("execution plan \"Deploy web server\" (scripts: deploy) done"),
        "{out}"
    );
    // Servers and ports are OS::Heat::None here: no address, the host name.
    assert!(
        out.contains("hello is available at http://web-1:8080/"),
        "{out}"
    );
}

#[test]
fn a_failing_script_fails_the_deployment_with_its_stderr() {
    let Some(e) = env() else { return };
    require_unshare();
    require_neutron(&e);
    let _turn = heat_turn();
    // The script goes on past the failed `apt-get update && ...` and fails
    // writing nginx's configuration (exit 2); both messages come back.
    let apt = "echo 'E: Unable to locate package nginx' >&2; exit 100";
    let (ok, out, logs) = deploy_webserver(&e, apt);
    assert!(!ok, "{out}\n{logs}");
    assert!(
        out.contains("uncaught exception in deploy: vetro.cloud.CloudError: the agent of io.murano.resources.LinuxMuranoInstance web-1 answered error 100: Script deploy returned error code (exit code 2); stderr: E: Unable to locate package nginx\n"),
        "{out}\n{logs}"
    );
    assert!(
        out.contains("cannot create /etc/nginx/sites-enabled/default"),
        "{out}\n{logs}"
    );
}

#[test]
fn an_agent_that_never_answers_times_out_naming_the_instance() {
    let Some(e) = env() else { return };
    require_neutron(&e);
    let _turn = heat_turn();
    let dir = tempfile::tempdir().unwrap();
    let id = fresh_id();
    // No agent is started; the model's calls wait one second.
    let api = heat_api(&e);
    let model = model_with_env_id(dir.path(), &id);
    let run = vetro_run(&e, dir.path(), &model, &["--agent-timeout", "1"])
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    delete_stack(&api, &format!("murano-{id}"));
    assert!(!run.status.success(), "{out}");
    assert!(
        out.contains(
            "the agent of io.murano.resources.LinuxMuranoInstance web-1 did not answer within 1 s"
        ),
        "{out}"
    );
}

#[test]
fn wrong_password_is_keystones_refusal() {
    let Some(e) = env() else { return };
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&e.clouds)
        .unwrap()
        .replace("vetro-demo-secret", "not-the-password");
    let clouds = dir.path().join("clouds.yaml");
    std::fs::write(&clouds, text).unwrap();
    let run = Command::new(VETRO)
        .args([
            "run",
            "examples/murano/webserver",
            "--model",
            "examples/murano/environment.json",
            "--backend",
            "openstack",
            "--os-cloud",
            CLOUD,
        ])
        .current_dir(repo())
        .env("OS_CLIENT_CONFIG_FILE", &clouds)
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.status.code(), Some(2), "{out}");
    assert!(
        out.contains("Keystone refused the credentials of cloud \"vetro-test\""),
        "{out}"
    );
    assert!(out.contains("401"), "{out}");
}

/// A package whose application pushes one `OS::Heat::TestResource` that
/// fails, and a model with it.
fn failing_package(dir: &Path, env_id: &str) -> (PathBuf, PathBuf) {
    let pkg = dir.join("failing");
    std::fs::create_dir_all(pkg.join("Classes")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Application\nFullName: io.vetro.tests.Failing\nName: Failing\n\
         Classes:\n  io.vetro.tests.Failing: Failing.yaml\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("Classes/Failing.yaml"),
        "Namespaces:\n  =: io.vetro.tests\n  std: io.murano\nName: Failing\nExtends: std:Application\n\
         Methods:\n  deploy:\n    Body:\n      - $env: $.find(std:Environment).require()\n      \
         - $env.stack.updateTemplate({resources => {broken => {type => 'OS::Heat::TestResource', \
         properties => {fail => true, value => v}}}})\n      - $env.stack.push()\n",
    )
    .unwrap();
    let model = dir.join("failing-model.json");
    let m = json!({"Objects": {"?": {"id": env_id, "type": "io.murano.Environment"}, "name": "f",
        "applications": [{"?": {"id": "0f0e0d0c0b0a49088706050403020100", "type": "io.vetro.tests.Failing"}}]}});
    std::fs::write(&model, m.to_string()).unwrap();
    (pkg, model)
}

#[test]
fn a_failing_resource_fails_the_deployment_with_heats_reason() {
    let Some(e) = env() else { return };
    let _turn = heat_turn();
    let dir = tempfile::tempdir().unwrap();
    let id = fresh_id();
    let (pkg, model) = failing_package(dir.path(), &id);
    let (ok, out) = output_of(on_cloud(
        Command::new(VETRO)
            .arg("run")
            .arg(&pkg)
            .arg("--model")
            .arg(&model),
        &e,
        None,
    ));
    delete_stack(&heat_api(&e), &format!("murano-{id}"));
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("stack murano-{id} is CREATE_FAILED")),
        "{out}"
    );
    assert!(out.contains("broken: "), "{out}");
    assert!(out.contains("Test Resource failed"), "{out}");
}

#[test]
fn vetro_test_runs_a_packages_tests_against_heat() {
    let Some(e) = env() else { return };
    let _turn = heat_turn();
    let dir = tempfile::tempdir().unwrap();
    let stack = format!("vetro-test-{}", &fresh_id()[16..]);
    let pkg = dir.path().join("stacktests");
    std::fs::create_dir_all(pkg.join("Classes")).unwrap();
    std::fs::write(
        pkg.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Library\nFullName: io.vetro.tests.Stacks\nName: Stacks\n\
         Classes:\n  io.vetro.tests.StackTests: StackTests.yaml\n",
    )
    .unwrap();
    std::fs::write(
        pkg.join("Classes/StackTests.yaml"),
        format!(
            "Namespaces:\n  =: io.vetro.tests\n  tst: io.murano.test\n  sys: io.murano.system\n\
             Name: StackTests\nExtends: tst:TestFixture\nMethods:\n  testStackRoundTrip:\n    Body:\n      \
             - $stack: new(sys:HeatStack, name => '{stack}')\n      \
             - $stack.setTemplate({{heat_template_version => '2013-05-23', resources => {{v => {{type => 'OS::Heat::Value', \
             properties => {{value => hello}}}}}}, outputs => {{o => {{value => {{get_attr => [v, value]}}}}}}}})\n      \
             - $stack.push()\n      - $this.assertEqual(hello, $stack.output().o)\n      - $stack.delete()\n"
        ),
    )
    .unwrap();
    let (ok, out) = output_of(on_cloud(
        Command::new(VETRO).arg("test").arg(&pkg),
        &e,
        None,
    ));
    let api = heat_api(&e);
    let gone = stack_gone(&api, &stack);
    delete_stack(&api, &stack);
    assert!(ok, "{out}");
    assert!(
        out.contains("PASS io.vetro.tests.StackTests.testStackRoundTrip"),
        "{out}"
    );
    assert!(gone, "the test's stack {stack} is still in Heat");
}
