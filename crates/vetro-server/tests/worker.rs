//! Engine workers end to end, over loopback HTTP: a deploy runs and commits,
//! an action runs on the deployed model, a failed deploy keeps the last good
//! model, a cancel stops a running engine, the policy refuses before the
//! engine runs, a deletion removes the environment, and a task whose worker
//! vanished is taken over after its lease expires.

use reqwest::blocking::{multipart, Client, RequestBuilder, Response};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vetro_server::worker::{spawn_workers, WorkerConfig, Workers};
use vetro_server::{AppState, Limits};
use vetro_store::tokens::Principal;
use vetro_store::Store;

struct Service {
    url: String,
    store: Store,
    token: String,
    client: Client,
    rt: tokio::runtime::Runtime,
    _packages: tempfile::TempDir,
    _stop: tokio::sync::watch::Sender<bool>,
}

fn config(packages: &std::path::Path) -> WorkerConfig {
    WorkerConfig {
        lease: Duration::from_secs(2),
        poll: Duration::from_millis(50),
        packages_dir: packages.to_path_buf(),
        ..WorkerConfig::default()
    }
}

/// The API with `workers` in-process workers on a fresh in-memory database.
fn start(workers: usize) -> Service {
    start_with(workers, |_| {})
}

/// As `start`, with the workers' configuration changed by `tune`.
fn start_with(workers: usize, tune: impl FnOnce(&mut WorkerConfig)) -> Service {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let packages = tempfile::tempdir().unwrap();
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let mut cfg = config(packages.path());
    tune(&mut cfg);
    let cfg = Arc::new(cfg);
    let (url, store, token) = rt.block_on(async {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        store.migrate().await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let st = AppState {
            store: store.clone(),
            limits: Arc::new(Limits::default()),
            default_policy: None,
            keystone: None,
            pages: Default::default(),
        };
        tokio::spawn(vetro_server::serve(st, listener, std::future::pending()));
        let n = Workers {
            deployments: workers,
            static_actions: 1,
        };
        spawn_workers(&store, n, cfg, &stop_rx);
        let p = Principal {
            project_id: "p1".into(),
            user_id: "u1".into(),
            is_admin: true,
        };
        let token = store.create_token(&p).await.unwrap();
        (format!("http://{addr}"), store, token)
    });
    Service {
        url,
        store,
        token,
        client: Client::new(),
        rt,
        _packages: packages,
        _stop: stop,
    }
}

impl Service {
    fn req(&self, method: &str, path: &str) -> RequestBuilder {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        self.client
            .request(m, format!("{}{path}", self.url))
            .header("X-Auth-Token", &self.token)
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let mut r = self.req(method, path);
        if let Some(b) = body {
            r = r.json(&b);
        }
        ok(r.send().unwrap())
    }

    fn get(&self, path: &str) -> Value {
        self.call("GET", path, None)
    }

    fn upload(&self, fqn: &str, class_body: &str) {
        let (ns, name) = fqn.rsplit_once('.').unwrap();
        let manifest = format!(
            "Format: MuranoPL/1.4\nType: Application\nFullName: {fqn}\nName: {name}\n\
             Author: vetro\nClasses:\n  {fqn}: {name}.yaml\n"
        );
        let class = format!(
            "Namespaces:\n  =: {ns}\n  std: io.murano\nName: {name}\nExtends: std:Application\n{class_body}"
        );
        let archive = zip(&[
            ("manifest.yaml", manifest.as_bytes()),
            (&format!("Classes/{name}.yaml"), class.as_bytes()),
        ]);
        let form = multipart::Form::new()
            .part(
                fqn.to_string(),
                multipart::Part::bytes(archive).file_name("p.zip"),
            )
            .text("__metadata__", json!({"is_public": false}).to_string());
        ok(self
            .req("POST", "/v1/catalog/packages")
            .multipart(form)
            .send()
            .unwrap());
    }

    fn environment(&self, name: &str) -> String {
        let env = self.call("POST", "/v1/environments", Some(json!({ "name": name })));
        env["id"].as_str().unwrap().to_string()
    }

    /// Opens a session, adds `apps` and deploys it; returns the deployment id.
    fn deploy(&self, env: &str, apps: &[Value]) -> String {
        let sess = self.call("POST", &format!("/v1/environments/{env}/configure"), None);
        let sid = sess["id"].as_str().unwrap();
        for app in apps {
            ok(self
                .req("POST", &format!("/v1/environments/{env}/services"))
                .header("X-Configuration-Session", sid)
                .json(app)
                .send()
                .unwrap());
        }
        self.call(
            "POST",
            &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
            None,
        );
        self.get(&format!("/v1/environments/{env}/deployments"))["deployments"][0]["id"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits until `f` gives `Some`, for at most `secs` seconds.
    fn wait<T>(&self, secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(v) = f() {
                return v;
            }
            assert!(Instant::now() < end, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn deployment(&self, env: &str, id: &str) -> Value {
        let all = self.get(&format!("/v1/environments/{env}/deployments"));
        all["deployments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == id)
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// Waits for the deployment to finish; returns it.
    fn finished(&self, env: &str, id: &str) -> Value {
        self.wait(60, "the deployment to finish", || {
            let d = self.deployment(env, id);
            let state = d["state"].as_str().unwrap_or("running");
            (!state.starts_with("running")).then_some(d)
        })
    }

    fn reports(&self, env: &str, id: &str) -> Vec<String> {
        self.get(&format!("/v1/environments/{env}/deployments/{id}"))["reports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{}: {}",
                    r["level"].as_str().unwrap(),
                    r["text"].as_str().unwrap()
                )
            })
            .collect()
    }
}

/// Whether a report of that level (`"info: "`, ...) contains `text`.
fn has(reports: &[String], level: &str, text: &str) -> bool {
    reports
        .iter()
        .any(|r| r.starts_with(level) && r.contains(text))
}

fn ok(r: Response) -> Value {
    let status = r.status();
    let text = r.text().unwrap();
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    vetro_dsl::package::write_zip(files.iter().copied()).unwrap()
}

fn app(id: &str, class: &str) -> Value {
    json!({"?": {"id": id, "type": class}, "name": id})
}

const GREETER: &str = r#"Properties:
  greeting:
    Contract: $.string()
    Usage: InOut
Methods:
  deploy:
    Body:
      - $.greeting: hello
      - $this.find(std:Environment).reporter.report($this, 'deployed the greeter')
  greet:
    Usage: Action
    Arguments:
      - who:
          Contract: $.string().notNull()
    Body:
      - Return: format('{0}, {1}', $.greeting, $who)
"#;

const FAILING: &str =
    "Methods:\n  deploy:\n    Body:\n      - Throw: DeployError\n        Message: the disk is full\n";

const ENDLESS: &str = "Methods:\n  deploy:\n    Body:\n      - $i: 0\n      - While: $i >= 0\n        Do:\n          - $i: $i + 1\n";

#[test]
fn a_deploy_runs_commits_and_its_action_answers() {
    let s = start(1);
    s.upload("t.Greeter", GREETER);
    let env = s.environment("e1");
    let dep = s.deploy(&env, &[app("g1", "t.Greeter")]);
    let d = s.finished(&env, &dep);
    let reports = s.reports(&env, &dep);
    assert_eq!(d["state"], "success", "{reports:#?}");
    assert!(
        has(&reports, "info: ", "deployed the greeter"),
        "{reports:#?}"
    );
    assert_eq!(reports.last().unwrap(), "info: Deployment finished");
    let shown = s.get(&format!("/v1/environments/{env}"));
    assert_eq!(shown["status"], "ready");
    assert_eq!(shown["services"][0]["greeting"], "hello");
    // The deployed model lists the action; calling it queues a task whose
    // result is the method's return value.
    let model = s.get(&format!("/v1/environments/{env}/model/"));
    let actions = model["services"][0]["?"]["_actions"]
        .as_object()
        .unwrap_or_else(|| panic!("no _actions in {model:#}"));
    let (action_id, _) = actions
        .iter()
        .find(|(_, a)| a["name"] == "greet")
        .unwrap_or_else(|| panic!("no greet action in {model:#}"));
    let task = s.call(
        "POST",
        &format!("/v1/environments/{env}/actions/{action_id}"),
        Some(json!({"who": "world"})),
    );
    let task_id = task["task_id"].as_str().unwrap();
    let result = s.wait(60, "the action's result", || {
        let r = s.get(&format!("/v1/environments/{env}/actions/{task_id}"));
        r.get("isException").is_some().then_some(r)
    });
    assert_eq!(
        result,
        json!({"result": "hello, world", "isException": false})
    );
    // The package versions are pinned to the deployment.
    let pins = s.rt.block_on(s.store.pinned_packages(&dep)).unwrap();
    assert_eq!(pins.len(), 1);
    assert_eq!(pins[0].fully_qualified_name, "t.Greeter");
}

const CHATTY: &str = "Methods:\n  deploy:\n    Body:\n      - For: i\n        In: range(0, 50)\n        Do:\n          - $this.find(std:Environment).reporter.report($this, 'step ' + str($i))\n";

#[test]
fn a_task_past_its_report_quota_fails_naming_it() {
    let s = start_with(1, |c| c.quotas.reports_per_task = 10);
    s.upload("t.Chatty", CHATTY);
    let env = s.environment("e1");
    let id = s.deploy(&env, &[app("c1", "t.Chatty")]);
    let d = s.finished(&env, &id);
    assert_eq!(d["state"], "completed_w_errors");
    let reports = s.reports(&env, &id);
    assert!(has(&reports, "error: ", "reports_per_task"), "{reports:#?}");
    assert!(reports.len() <= 12, "{reports:#?}");
}

#[test]
fn a_task_whose_model_is_over_the_quota_is_not_stored() {
    let s = start_with(1, |c| c.quotas.model_bytes = 64);
    s.upload("t.Greeter", GREETER);
    let env = s.environment("e1");
    let id = s.deploy(&env, &[app("g1", "t.Greeter")]);
    assert_eq!(s.finished(&env, &id)["state"], "completed_w_errors");
    let reports = s.reports(&env, &id);
    assert!(has(&reports, "error: ", "model_bytes"), "{reports:#?}");
}

#[test]
fn a_failed_deploy_keeps_the_last_good_model() {
    let s = start(1);
    s.upload("t.Greeter", GREETER);
    s.upload("t.Failing", FAILING);
    let env = s.environment("e1");
    let first = s.deploy(&env, &[app("g1", "t.Greeter")]);
    assert_eq!(s.finished(&env, &first)["state"], "success");
    let good = s.get(&format!("/v1/environments/{env}/model/"));
    let second = s.deploy(&env, &[app("f1", "t.Failing")]);
    let d = s.finished(&env, &second);
    assert_eq!(d["state"], "completed_w_errors");
    let reports = s.reports(&env, &second);
    assert!(has(&reports, "error: ", "the disk is full"), "{reports:#?}");
    let shown = s.get(&format!("/v1/environments/{env}"));
    assert_eq!(shown["status"], "deploy failure");
    assert_eq!(s.get(&format!("/v1/environments/{env}/model/")), good);
    let task = s.rt.block_on(s.store.get_task(&second)).unwrap();
    let attempted = task
        .attempted_model
        .expect("the attempted model is kept on the task");
    assert_eq!(attempted["Objects"]["services"][1]["?"]["id"], "f1");
}

#[test]
fn a_cancel_stops_the_running_engine() {
    let s = start(1);
    s.upload("t.Endless", ENDLESS);
    let env = s.environment("e1");
    let dep = s.deploy(&env, &[app("x1", "t.Endless")]);
    s.wait(30, "the task to start", || {
        let t = s.rt.block_on(s.store.get_task(&dep)).unwrap();
        (t.state == "running").then_some(())
    });
    s.call(
        "POST",
        &format!("/v1/environments/{env}/deployments/{dep}/cancel"),
        None,
    );
    let d = s.finished(&env, &dep);
    assert_eq!(d["state"], "completed_w_errors");
    let task = s.rt.block_on(s.store.get_task(&dep)).unwrap();
    assert_eq!(task.state, "cancelled");
    let reports = s.reports(&env, &dep);
    assert!(
        has(&reports, "warning: ", "Deployment cancelled"),
        "{reports:#?}"
    );
    assert_eq!(
        s.get(&format!("/v1/environments/{env}"))["status"],
        "deploy failure"
    );
}

#[test]
fn the_policy_refuses_before_the_engine_runs() {
    let s = start(1);
    s.upload("t.Greeter", GREETER);
    let policy = "predeploy_errors(eid, oid, \"greeters are not allowed\") :-\n    \
                  murano:objects(oid, pid, \"t.Greeter\"), murano:states(eid, state)\n";
    s.call("PUT", "/v1/policy", Some(json!({ "policy": policy })));
    let env = s.environment("e1");
    let dep = s.deploy(&env, &[app("g1", "t.Greeter")]);
    let d = s.finished(&env, &dep);
    assert_eq!(d["state"], "completed_w_errors");
    let reports = s.reports(&env, &dep);
    assert!(
        has(&reports, "error: ", "greeters are not allowed"),
        "{reports:#?}"
    );
    assert!(
        !reports.iter().any(|r| r.contains("deployed the greeter")),
        "{reports:#?}"
    );
}

#[test]
fn a_deletion_removes_the_environment() {
    let s = start(1);
    s.upload("t.Greeter", GREETER);
    let env = s.environment("e1");
    let dep = s.deploy(&env, &[app("g1", "t.Greeter")]);
    assert_eq!(s.finished(&env, &dep)["state"], "success");
    ok(s.req("DELETE", &format!("/v1/environments/{env}"))
        .send()
        .unwrap());
    s.wait(60, "the environment to go", || {
        let r = s
            .req("GET", &format!("/v1/environments/{env}"))
            .send()
            .unwrap();
        (r.status() == 404).then_some(())
    });
}

#[test]
fn a_task_whose_worker_vanished_is_taken_over() {
    // No workers yet: a ghost claims the task with a short lease and dies.
    let s = start(0);
    s.upload("t.Greeter", GREETER);
    let env = s.environment("e1");
    let dep = s.deploy(&env, &[app("g1", "t.Greeter")]);
    let claimed =
        s.rt.block_on(s.store.claim_task("ghost", Duration::from_millis(200)))
            .unwrap()
            .unwrap();
    assert_eq!(claimed.id, dep);
    assert!(s
        .rt
        .block_on(s.store.claim_task("other", Duration::from_secs(5)))
        .unwrap()
        .is_none());
    std::thread::sleep(Duration::from_millis(300));
    let packages = tempfile::tempdir().unwrap();
    let (_stop, rx) = tokio::sync::watch::channel(false);
    let _guard = s.rt.enter();
    let n = Workers {
        deployments: 1,
        static_actions: 0,
    };
    spawn_workers(&s.store, n, Arc::new(config(packages.path())), &rx);
    let d = s.finished(&env, &dep);
    let reports = s.reports(&env, &dep);
    // The takeover's warning report makes it a success with warnings.
    assert_eq!(d["state"], "completed_w_warnings", "{reports:#?}");
    assert!(has(&reports, "warning: ", "takes it over"), "{reports:#?}");
    let task = s.rt.block_on(s.store.get_task(&dep)).unwrap();
    assert_eq!(task.attempts, 2);
    // The ghost's late writes are refused.
    assert!(!s.rt.block_on(s.store.release_task(&dep, "ghost")).unwrap());
}
