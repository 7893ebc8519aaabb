//! `vetro serve --backend openstack`: the service's workers deploy to the
//! real Keystone, Heat and RabbitMQ that `.ci/setup.d/05-openstack.sh`
//! starts, through the HTTP API; each test skips with a message without
//! them. Nova, Neutron and Cinder resources are `OS::Heat::None` here (the
//! test's `--heat-environment`), the network explorer talks to the Neutron
//! stand-in, and the test plays each instance with `vetro agent` (see
//! `openstack/mod.rs`).

use serde_json::{json, Value as Json};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod openstack;
mod service;
use openstack::*;
use service::{database, setup, Proc};

/// The Keystone password of the test cloud (in its clouds.yaml).
const PASSWORD: &str = "vetro-demo-secret";

/// `vetro serve --backend openstack` on a free port, one worker; its base
/// URL. Its log goes to `log`.
fn serve_openstack(e: &Env, db: &str, dir: &Path, log: &Path) -> (Proc, String) {
    let mut cmd = service::serve_command(db, "1", dir, "5");
    cmd.args(["--agent-timeout", "60"]);
    on_cloud(&mut cmd, e, Some(dir))
        .env("VETRO_LOG", "debug")
        .stderr(Stdio::from(std::fs::File::create(log).unwrap()));
    let (p, url, line) = service::start_serve(&mut cmd);
    assert!(line.contains("backend openstack"), "{line}");
    (p, url)
}

/// The processes `parent` started, with their command lines and environments.
fn children(parent: u32) -> Vec<(u32, String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // pid (comm) state ppid ...: the name may hold spaces, so after ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            let read = |f: &str| {
                String::from_utf8_lossy(
                    &std::fs::read(format!("/proc/{pid}/{f}")).unwrap_or_default(),
                )
                .replace('\0', " ")
            };
            out.push((pid, read("cmdline"), read("environ")));
        }
    }
    out
}

/// Plays the `servers` with agents until deployment `dep` finishes; its
/// state and reports.
fn finish_with_agents(
    api: &service::Api,
    env_id: &str,
    dep: &str,
    dir: &Path,
    servers: &[(String, String)],
) -> (String, Vec<String>) {
    let mut agents: Vec<_> = servers
        .iter()
        .filter_map(|(n, c)| start_agent(dir, n, c, APT_INSTALLS))
        .collect();
    let state = api.finished(env_id, dep, 90);
    for a in agents.iter_mut() {
        let _ = a.kill();
        let _ = a.wait();
    }
    (state, api.reports(env_id, dep))
}

/// Deletes environment `env_id` through the API and waits (up to a minute)
/// for its stack to go; whether it went (if not, the test deletes it).
fn delete_environment(api: &service::Api, heat: &HeatApi, env_id: &str) -> bool {
    let stack = format!("murano-{env_id}");
    api.call("DELETE", &format!("/v1/environments/{env_id}"), None, None);
    let end = Instant::now() + Duration::from_secs(60);
    while !stack_gone(heat, &stack) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(200));
    }
    let gone = stack_gone(heat, &stack);
    if !gone {
        delete_stack(heat, &stack);
    }
    gone
}

/// The webserver example uploaded and deployed in a new environment
/// `name`: the environment's and the deployment's ids.
fn deploy_example(api: &service::Api, name: &str) -> (String, String) {
    let package = repo().join("examples/murano/webserver");
    api.upload_dir("io.vetro.examples.WebServer", &package);
    let text = std::fs::read_to_string(repo().join("examples/murano/environment.json")).unwrap();
    let m: Json = serde_json::from_str(&text).unwrap();
    api.deploy_app(name, m["Objects"]["applications"][0].clone())
}

#[test]
fn the_service_deploys_to_heat_and_deletes_the_stack_with_the_environment() {
    let Some(e) = env() else { return };
    require_unshare();
    require_neutron(&e);
    let _turn = heat_turn();
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let log = dir.path().join("serve.log");
    let (serve, url) = serve_openstack(&e, &db, dir.path(), &log);
    let api = setup(&db, &url);
    let (env_id, dep) = deploy_example(&api, "openstack-e2e");
    let stack = format!("murano-{env_id}");
    let heat = heat_api(&e);
    let servers = server_configs(&heat, &stack, Duration::from_secs(60), &mut || true);
    assert!(
        !servers.is_empty(),
        "no server with agent user data in stack {stack}: {:#?}",
        api.reports(&env_id, &dep)
    );
    // The engine process is waiting for the agents now: no secret in its
    // arguments or environment.
    let engines: Vec<_> = children(serve.0.id())
        .into_iter()
        .filter(|(_, cmd, _)| cmd.contains("engine-task"))
        .collect();
    assert!(!engines.is_empty(), "no engine process of the server");
    for (pid, cmd, environ) in &engines {
        assert!(
            !cmd.contains(PASSWORD) && !environ.contains(PASSWORD),
            "engine process {pid}: {cmd} / {environ}"
        );
    }
    let (state, reports) = finish_with_agents(&api, &env_id, &dep, dir.path(), &servers);
    if state != "success" {
        delete_stack(&heat, &stack);
        panic!(
            "deployment {state}: {reports:#?}\n{}",
            agent_logs(dir.path(), &servers)
        );
    }
    assert!(
        reports
            .iter()
            .any(|r| r.ends_with("hello is available at http://web-1:8080/")),
        "{reports:#?}"
    );
    assert!(!stack_gone(&heat, &stack), "the stack {stack} is missing");
    // Deleting the environment deletes its stack.
    assert!(
        delete_environment(&api, &heat, &env_id),
        "stack {stack} still there a minute after the environment's deletion"
    );
    drop(serve);
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!logged.contains(PASSWORD), "the password is in the log");
}

/// `vetro worker --backend openstack` on `db`, its lease two seconds.
fn openstack_worker(e: &Env, db: &str, dir: &Path, name: &str) -> Proc {
    let mut cmd = service::worker_command(db, dir, name);
    cmd.args(["--concurrency", "1", "--agent-timeout", "60"]);
    on_cloud(&mut cmd, e, Some(dir)).env("VETRO_LOG", "warn");
    Proc(cmd.spawn().unwrap())
}

/// The id Heat gave stack `stack`.
fn stack_id(heat: &HeatApi, stack: &str) -> Option<String> {
    get(heat, &format!("/stacks/{stack}"))?["stack"]["id"]
        .as_str()
        .map(str::to_string)
}

#[test]
fn a_killed_worker_s_deployment_is_taken_over_on_the_same_stack() {
    let Some(e) = env() else { return };
    require_unshare();
    require_neutron(&e);
    let _turn = heat_turn();
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    // The API alone; the workers are processes of their own.
    let (_serve, url) = service::serve(&db, "0", dir.path());
    let api = setup(&db, &url);
    let first = openstack_worker(&e, &db, dir.path(), "w1");
    let (env_id, dep) = deploy_example(&api, "takeover");
    let stack = format!("murano-{env_id}");
    let heat = heat_api(&e);
    // The first worker's engine pushed the stack and waits for the agents.
    let servers = server_configs(&heat, &stack, Duration::from_secs(60), &mut || true);
    assert!(!servers.is_empty(), "{:#?}", api.reports(&env_id, &dep));
    let id = stack_id(&heat, &stack).unwrap();
    let engines: Vec<u32> = children(first.0.id()).into_iter().map(|c| c.0).collect();
    assert!(!engines.is_empty(), "no engine process of the first worker");
    drop(first); // SIGKILL
                 // Its engine dies with it.
    let end = Instant::now() + Duration::from_secs(5);
    while engines
        .iter()
        .any(|p| Path::new(&format!("/proc/{p}")).exists())
    {
        assert!(Instant::now() < end, "the engine outlived its worker");
        std::thread::sleep(Duration::from_millis(50));
    }
    let _second = openstack_worker(&e, &db, dir.path(), "w2");
    let (state, reports) = finish_with_agents(&api, &env_id, &dep, dir.path(), &servers);
    let now = stack_id(&heat, &stack);
    let gone = delete_environment(&api, &heat, &env_id);
    // The takeover's warning is the only thing that went wrong.
    assert_eq!(
        state,
        "completed_w_warnings",
        "{reports:#?}\n{}",
        agent_logs(dir.path(), &servers)
    );
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("warning: ") && r.contains("another worker takes it over")),
        "{reports:#?}"
    );
    assert!(
        reports.iter().any(|r| r.contains("hello is available")),
        "{reports:#?}"
    );
    // The takeover updated the stack the first worker created.
    assert_eq!(now.as_deref(), Some(id.as_str()));
    assert!(gone, "stack {stack} outlived its environment");
}

/// An application whose deployment creates the environment's stack with a
/// resource Heat makes and, after it, one that fails.
const FAILING_STACK: &str = r#"Namespaces:
  =: t
  std: io.murano
Name: FailingStack
Extends: std:Application
Methods:
  deploy:
    Body:
      - $env: $this.find(std:Environment)
      - $template:
          resources:
            made:
              type: 'OS::Heat::RandomString'
            broken:
              type: 'OS::Heat::TestResource'
              depends_on: made
              properties:
                fail: true
      - $env.stack.updateTemplate($template)
      - $env.stack.push()
"#;

#[test]
fn deleting_an_environment_whose_first_deployment_failed_deletes_its_stack() {
    let Some(e) = env() else { return };
    let _turn = heat_turn();
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let log = dir.path().join("serve.log");
    let (_serve, url) = serve_openstack(&e, &db, dir.path(), &log);
    let api = setup(&db, &url);
    api.upload_class("t.FailingStack", FAILING_STACK);
    // No default network: the application's push creates the stack.
    let body = json!({"name": "failing", "defaultNetworks": {"environment": null, "flat": null}});
    let created = api.call("POST", "/v1/environments", None, Some(body));
    let env_id = created["id"].as_str().unwrap().to_string();
    let app = json!({"?": {"id": fresh_id(), "type": "t.FailingStack"}, "name": "failing"});
    let dep = api.redeploy(&env_id, Some(app));
    let state = api.finished(&env_id, &dep, 90);
    let reports = api.reports(&env_id, &dep);
    let stack = format!("murano-{env_id}");
    let heat = heat_api(&e);
    let status = get(&heat, &format!("/stacks/{stack}"))
        .map(|s| s["stack"]["stack_status"].clone())
        .unwrap_or_default();
    let made = get(&heat, &format!("/stacks/{stack}/resources"))
        .map(|r| r["resources"].to_string())
        .unwrap_or_default();
    let gone = delete_environment(&api, &heat, &env_id);
    assert_ne!(state, "success", "{reports:#?}");
    assert_eq!(status, "CREATE_FAILED", "{reports:#?}");
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("error: ") && r.contains("CREATE_FAILED")),
        "Heat's reason is not reported: {reports:#?}"
    );
    assert!(made.contains("CREATE_COMPLETE"), "nothing was made: {made}");
    assert!(gone, "stack {stack} outlived its environment");
    // The deletion task commits just after Heat is done.
    let end = Instant::now() + Duration::from_secs(10);
    let shown = || {
        let r = api.client.get(format!("{url}/v1/environments/{env_id}"));
        r.header("X-Auth-Token", &api.token)
            .send()
            .unwrap()
            .status()
    };
    while shown() != 404 {
        assert!(
            Instant::now() < end,
            "the environment outlived its deletion"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
