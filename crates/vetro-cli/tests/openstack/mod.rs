//! What the OpenStack tests of `vetro run` and `vetro serve` share: the
//! services' settings (each test skips with a message without them, and
//! fails when they are given but something it needs is missing, so that CI
//! never skips silently), the test's own calls to Keystone and Heat, and
//! `vetro agent` playing an instance.
#![allow(dead_code)]

use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use vetro_openstack::clouds::from_clouds_yaml;
use vetro_openstack::keystone::{auth_body, find_endpoint};

#[path = "../../../vetro-openstack/tests/support/heat_turn.rs"]
mod heat_turn;
pub use heat_turn::heat_turn;

pub const VETRO: &str = env!("CARGO_BIN_EXE_vetro");
pub const CLOUD: &str = "vetro-test";

pub struct Env {
    pub clouds: PathBuf,
    pub amqp: Option<String>,
}

/// The services, or `None` (skip) when VETRO_TEST_CLOUDS_YAML is not set.
pub fn env() -> Option<Env> {
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
    pub fn amqp(&self) -> &str {
        self.amqp.as_deref().expect(
            "VETRO_TEST_CLOUDS_YAML is set but VETRO_TEST_AMQP_URL is not: RabbitMQ did not start",
        )
    }
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn fresh_id() -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{:032x}", n ^ ((std::process::id() as u128) << 64))
}

pub const NONE_TYPES: &[&str] = &[
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

pub fn heat_environment(dir: &Path) -> PathBuf {
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
pub fn post_with_retries(
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
pub fn require_neutron(e: &Env) {
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
pub type HeatApi = (reqwest::blocking::Client, String, String);

pub fn heat_api(e: &Env) -> HeatApi {
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

pub fn get(api: &HeatApi, path: &str) -> Option<Json> {
    let r = api
        .0
        .get(format!("{}{path}", api.2))
        .header("X-Auth-Token", &api.1)
        .send()
        .ok()?;
    r.status().is_success().then(|| r.json().ok()).flatten()
}

/// The agent configuration written by a server's user data.
pub fn agent_config(user_data: &str) -> Option<String> {
    let start = user_data.find("<<\"VETRO_AGENT_CONF\"\n")? + "<<\"VETRO_AGENT_CONF\"\n".len();
    let end = user_data[start..].find("VETRO_AGENT_CONF\n")? + start;
    Some(user_data[start..end].to_string())
}

/// Wait until the stack has servers with user data (or `alive` says the
/// deploying process ended); their agent configurations.
pub fn server_configs(
    api: &HeatApi,
    stack: &str,
    wait: Duration,
    alive: &mut dyn FnMut() -> bool,
) -> Vec<(String, String)> {
    let start = Instant::now();
    while start.elapsed() < wait && alive() {
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

/// Whether stack `stack` is gone from Heat (deleted, or never made).
pub fn stack_gone(api: &HeatApi, stack: &str) -> bool {
    match get(api, &format!("/stacks/{stack}")) {
        None => true,
        Some(s) => s["stack"]["stack_status"] == "DELETE_COMPLETE",
    }
}

/// `vetro agent` as the instance: throw-away /etc and /var, stand-in tools.
pub fn start_agent(dir: &Path, name: &str, config: &str, apt: &str) -> Option<Child> {
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
pub fn agent_logs(dir: &Path, servers: &[(String, String)]) -> String {
    servers
        .iter()
        .map(|(name, _)| {
            let log = std::fs::read_to_string(dir.join(name).join("agent.log")).unwrap_or_default();
            format!("--- agent of {name}:\n{log}")
        })
        .collect()
}

pub fn require_unshare() {
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
pub fn delete_stack(api: &HeatApi, stack: &str) {
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
pub const APT_INSTALLS: &str = "case \"$*\" in *nginx*) mkdir -p /etc/nginx/sites-enabled ;; esac";

/// `c` pointed at the test cloud: `--backend openstack --os-cloud`, its
/// clouds.yaml; with `dir`, also the broker and the Heat environment.
pub fn on_cloud<'c>(c: &'c mut Command, e: &Env, dir: Option<&Path>) -> &'c mut Command {
    c.args(["--backend", "openstack", "--os-cloud", CLOUD])
        .env("OS_CLIENT_CONFIG_FILE", &e.clouds);
    if let Some(dir) = dir {
        c.args(["--amqp-url", e.amqp(), "--heat-environment"])
            .arg(heat_environment(dir));
    }
    c
}

/// Runs `c`; whether it succeeded, and its standard output then error.
pub fn output_of(c: &mut Command) -> (bool, String) {
    let run = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    (run.status.success(), text)
}
