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
use vetro_openstack::clouds::from_clouds_yaml;
use vetro_openstack::keystone::{auth_body, find_endpoint};

#[path = "../../vetro-openstack/tests/support/heat_turn.rs"]
mod heat_turn;
use heat_turn::heat_turn;

const VETRO: &str = env!("CARGO_BIN_EXE_vetro");
const CLOUD: &str = "vetro-test";

struct Env {
    clouds: PathBuf,
    amqp: Option<String>,
}

/// The services, or `None` (skip) when VETRO_TEST_CLOUDS_YAML is not set.
fn env() -> Option<Env> {
    let Some(clouds) = std::env::var_os("VETRO_TEST_CLOUDS_YAML").map(PathBuf::from) else {
        eprintln!("skipped: VETRO_TEST_CLOUDS_YAML is not set (.ci/setup.d/05-openstack.sh starts Keystone, Heat and RabbitMQ)");
        return None;
    };
    let amqp = std::env::var("VETRO_TEST_AMQP_URL")
        .ok()
        .filter(|u| !u.is_empty());
    Some(Env { clouds, amqp })
}

impl Env {
    /// The broker; with the cloud given, a missing broker is a failure.
    fn amqp(&self) -> &str {
        self.amqp.as_deref().expect(
            "VETRO_TEST_CLOUDS_YAML is set but VETRO_TEST_AMQP_URL is not: RabbitMQ did not start",
        )
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fresh_id() -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{:032x}", n ^ ((std::process::id() as u128) << 64))
}

const NONE_TYPES: &[&str] = &[
    "OS::Nova::Server",
    "OS::Neutron::Net",
    "OS::Neutron::Subnet",
    "OS::Neutron::Port",
    "OS::Neutron::Router",
    "OS::Neutron::RouterInterface",
    "OS::Neutron::SecurityGroup",
    "OS::Neutron::SecurityGroupRule",
    "OS::Neutron::FloatingIP",
    "OS::Neutron::FloatingIPAssociation",
    "OS::Cinder::Volume",
    "OS::Cinder::VolumeAttachment",
];

fn heat_environment(dir: &Path) -> PathBuf {
    let registry: serde_json::Map<String, Json> = NONE_TYPES
        .iter()
        .map(|t| (t.to_string(), json!("OS::Heat::None")))
        .collect();
    let path = dir.join("heat-env.json");
    std::fs::write(&path, json!({"resource_registry": registry}).to_string()).unwrap();
    path
}

/// Keystone under uwsgi sometimes drops a connection while it warms up:
/// a POST that never reached it is tried again a few times.
fn post_with_retries(
    http: &reqwest::blocking::Client,
    url: &str,
    body: &Json,
) -> reqwest::blocking::Response {
    let mut last = None;
    for attempt in 0..5 {
        match http.post(url).json(body).send() {
            Ok(resp) => return resp,
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(200 << attempt));
    }
    panic!("Keystone at {url} cannot be reached: {}", last.unwrap());
}

/// The webserver example's network needs Neutron (the network explorer):
/// the test cloud's catalog must have it.
fn require_neutron(e: &Env) {
    let lookup = |k: &str| (k == "OS_CLIENT_CONFIG_FILE").then(|| e.clouds.display().to_string());
    let creds = from_clouds_yaml(CLOUD, &lookup, Path::new("/")).unwrap();
    let url = format!("{}/auth/tokens", creds.auth_url.trim_end_matches('/'));
    let body: Json = post_with_retries(&reqwest::blocking::Client::new(), &url, &auth_body(&creds))
        .json()
        .unwrap();
    if let Err(e) = find_endpoint(&body["token"]["catalog"], "network", "public", None) {
        panic!("{e}: the services script registers the Neutron stand-in as the network service; it did not start or register");
    }
}

/// An HTTP client, a token and Heat's endpoint, for the test's own calls.
type HeatApi = (reqwest::blocking::Client, String, String);

fn heat_api(e: &Env) -> HeatApi {
    let lookup = |k: &str| (k == "OS_CLIENT_CONFIG_FILE").then(|| e.clouds.display().to_string());
    let creds = from_clouds_yaml(CLOUD, &lookup, Path::new("/")).unwrap();
    let http = reqwest::blocking::Client::new();
    let url = format!("{}/auth/tokens", creds.auth_url.trim_end_matches('/'));
    let resp = post_with_retries(&http, &url, &auth_body(&creds));
    let token = resp.headers()["X-Subject-Token"]
        .to_str()
        .unwrap()
        .to_string();
    let body: Json = resp.json().unwrap();
    let heat = find_endpoint(
        &body["token"]["catalog"],
        "orchestration",
        "public",
        Some("RegionOne"),
    )
    .unwrap();
    (http, token, heat)
}

fn get(api: &HeatApi, path: &str) -> Option<Json> {
    let r = api
        .0
        .get(format!("{}{path}", api.2))
        .header("X-Auth-Token", &api.1)
        .send()
        .ok()?;
    r.status().is_success().then(|| r.json().ok()).flatten()
}

/// `vetro run` of the webserver example on the test cloud.
fn vetro_run(e: &Env, dir: &Path, model: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(VETRO);
    c.args(["run", "examples/murano/webserver", "--model"])
        .arg(model)
        .args([
            "--backend",
            "openstack",
            "--os-cloud",
            CLOUD,
            "--amqp-url",
            e.amqp(),
            "--heat-environment",
        ])
        .arg(heat_environment(dir))
        .args(extra)
        .current_dir(repo())
        .env("OS_CLIENT_CONFIG_FILE", &e.clouds)
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

/// The agent configuration written by a server's user data.
fn agent_config(user_data: &str) -> Option<String> {
    let start = user_data.find("<<\"VETRO_AGENT_CONF\"\n")? + "<<\"VETRO_AGENT_CONF\"\n".len();
    let end = user_data[start..].find("VETRO_AGENT_CONF\n")? + start;
    Some(user_data[start..end].to_string())
}

/// Wait until the stack has servers with user data (or `run` ended); their
/// agent configurations.
fn server_configs(
    api: &HeatApi,
    stack: &str,
    wait: Duration,
    run: &mut Child,
) -> Vec<(String, String)> {
    let start = Instant::now();
    while start.elapsed() < wait && matches!(run.try_wait(), Ok(None)) {
        if let Some(t) = get(api, &format!("/stacks/{stack}/template")) {
            let servers: Vec<(String, String)> = t["resources"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(_, r)| r["type"] == "OS::Nova::Server")
                .filter_map(|(n, r)| {
                    Some((
                        n.clone(),
                        agent_config(r["properties"]["user_data"].as_str()?)?,
                    ))
                })
                .collect();
            if !servers.is_empty() {
                return servers;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Vec::new()
}

/// `vetro agent` as the instance: throw-away /etc and /var, stand-in tools.
fn start_agent(dir: &Path, name: &str, config: &str, apt: &str) -> Option<Child> {
    let home = dir.join(name);
    for d in ["bin", "storage", "etc-up", "etc-work", "var-up", "var-work"] {
        std::fs::create_dir_all(home.join(d)).unwrap();
    }
    let storage = home.join("storage");
    let conf: String = config
        .lines()
        .map(|l| {
            if l.starts_with("storage =") {
                format!("storage = {}", storage.display())
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(home.join("agent.conf"), conf).unwrap();
    for (tool, body) in [("apt-get", apt), ("systemctl", "echo active")] {
        let p = home.join("bin").join(tool);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        Command::new("chmod").arg("+x").arg(&p).status().unwrap();
    }
    let h = home.display();
    let script = format!(
        "mount -t overlay o -o lowerdir=/etc,upperdir={h}/etc-up,workdir={h}/etc-work /etc && \
         mount -t overlay o -o lowerdir=/var,upperdir={h}/var-up,workdir={h}/var-work /var && \
         exec {VETRO} agent --config-file {h}/agent.conf"
    );
    let path = format!("{h}/bin:{}", std::env::var("PATH").unwrap_or_default());
    Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .env("PATH", path)
        .stdout(Stdio::null())
        .stderr(Stdio::from(
            std::fs::File::create(home.join("agent.log")).unwrap(),
        ))
        .spawn()
        .ok()
}

/// What the played instances' agents logged, for a failure message.
fn agent_logs(dir: &Path, servers: &[(String, String)]) -> String {
    servers
        .iter()
        .map(|(name, _)| {
            let log = std::fs::read_to_string(dir.join(name).join("agent.log")).unwrap_or_default();
            format!("--- agent of {name}:\n{log}")
        })
        .collect()
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

fn require_unshare() {
    let ok = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "true"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "playing an instance needs `unshare --mount` (root): run the OpenStack tests as root or unset VETRO_TEST_CLOUDS_YAML"
    );
}

/// Delete the stack and wait (up to a minute) until Heat is done with it.
fn delete_stack(api: &HeatApi, stack: &str) {
    let Some(s) = get(api, &format!("/stacks/{stack}")) else {
        return;
    };
    let id = s["stack"]["id"].as_str().unwrap_or_default().to_string();
    let _ = api
        .0
        .delete(format!("{}/stacks/{stack}/{id}", api.2))
        .header("X-Auth-Token", &api.1)
        .send();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        match get(api, &format!("/stacks/{stack}/{id}")) {
            Some(s) if s["stack"]["stack_status"] == "DELETE_IN_PROGRESS" => {}
            _ => return,
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The package manager's stand-in makes the directories nginx's package would.
const APT_INSTALLS: &str = "case \"$*\" in *nginx*) mkdir -p /etc/nginx/sites-enabled ;; esac";

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
    let servers = server_configs(&api, &stack, Duration::from_secs(60), &mut run);
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
    let run = Command::new(VETRO)
        .arg("run")
        .arg(&pkg)
        .arg("--model")
        .arg(&model)
        .args(["--backend", "openstack", "--os-cloud", CLOUD])
        .env("OS_CLIENT_CONFIG_FILE", &e.clouds)
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    delete_stack(&heat_api(&e), &format!("murano-{id}"));
    assert!(!run.status.success(), "{out}");
    assert!(
        out.contains(&format!("stack murano-{id} is CREATE_FAILED")),
        "{out}"
    );
    assert!(out.contains("broken: "), "{out}");
    assert!(out.contains("Test Resource failed"), "{out}");
}
