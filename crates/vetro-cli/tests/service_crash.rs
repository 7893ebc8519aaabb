//! Crash safety of the service, with real processes: an engine worker (or the
//! whole `vetro serve`) is killed with SIGKILL in the middle of a deployment,
//! and the deployment is taken over by another worker once the lease expires,
//! or failed with a clear report when no attempts are left. The session
//! never stays `deploying`. Runs on SQLite, and on PostgreSQL too when
//! `VETRO_TEST_PG_URL` is set.
#![cfg(unix)]

use reqwest::blocking::{multipart, Client};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const VETRO: &str = env!("CARGO_BIN_EXE_vetro");

/// A deployment that takes `seconds` of wall time, busy in the engine.
const SLOW: &str = r#"Namespaces:
  =: t
  std: io.murano
Name: Slow
Extends: std:Application
Properties:
  seconds:
    Contract: $.int().notNull()
Methods:
  deploy:
    Body:
      - $env: $this.find(std:Environment)
      - $env.reporter.report($this, 'slow step started')
      - $end: now() + timespan(seconds => $.seconds)
      - $n: 0
      - While: now() < $end
        Do:
          - $n: $n + 1
      - $env.reporter.report($this, 'slow step done')
"#;

const MANIFEST: &str = "Format: MuranoPL/1.4\nType: Application\nFullName: t.Slow\nName: Slow\n\
Author: vetro\nClasses:\n  t.Slow: Slow.yaml\n";

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn vetro(args: &[&str]) -> String {
    let out = Command::new(VETRO).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "vetro {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn spawn(args: &[&str]) -> (Proc, BufReader<std::process::ChildStdout>) {
    let mut child = Command::new(VETRO)
        .args(args)
        .env("VETRO_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    (Proc(child), out)
}

/// Starts `vetro serve` on a free port; returns it and its base URL.
fn serve(db: &str, workers: &str, dir: &std::path::Path) -> (Proc, String) {
    let pkgs = dir.join("packages-serve");
    let (p, mut out) = spawn(&[
        "serve",
        "--db",
        db,
        "--listen",
        "127.0.0.1:0",
        "--workers",
        workers,
        "--lease-seconds",
        "2",
        "--packages-dir",
        pkgs.to_str().unwrap(),
    ]);
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    (p, url)
}

fn worker(db: &str, dir: &std::path::Path, name: &str, extra: &[&str]) -> Proc {
    let pkgs = dir.join(name);
    let mut args = vec![
        "worker",
        "--db",
        db,
        "--lease-seconds",
        "2",
        "--packages-dir",
        pkgs.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    // Its stdout is not read: a closed pipe would fail its first print.
    let child = Command::new(VETRO)
        .args(&args)
        .env("VETRO_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    Proc(child)
}

struct Api {
    url: String,
    token: String,
    client: Client,
}

impl Api {
    fn call(&self, method: &str, path: &str, session: Option<&str>, body: Option<Value>) -> Value {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self
            .client
            .request(m, format!("{}{path}", self.url))
            .header("X-Auth-Token", &self.token);
        if let Some(s) = session {
            r = r.header("X-Configuration-Session", s);
        }
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().unwrap();
        let status = resp.status();
        let text = resp.text().unwrap();
        assert_eq!(status, 200, "{method} {path}: {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    fn upload(&self) {
        let mut buf = std::io::Cursor::new(Vec::new());
        {
            let mut z = zip::ZipWriter::new(&mut buf);
            for (name, data) in [("manifest.yaml", MANIFEST), ("Classes/Slow.yaml", SLOW)] {
                z.start_file(name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                z.write_all(data.as_bytes()).unwrap();
            }
            z.finish().unwrap();
        }
        let form = multipart::Form::new().part(
            "t.Slow",
            multipart::Part::bytes(buf.into_inner()).file_name("slow.zip"),
        );
        let r = self
            .client
            .post(format!("{}/v1/catalog/packages", self.url))
            .header("X-Auth-Token", &self.token)
            .multipart(form)
            .send()
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().unwrap());
    }

    /// Creates an environment with one slow app and deploys it.
    fn deploy_slow(&self, seconds: i64) -> (String, String) {
        let env = self.call(
            "POST",
            "/v1/environments",
            None,
            Some(json!({"name": "e1"})),
        );
        let env = env["id"].as_str().unwrap().to_string();
        let s = self.call(
            "POST",
            &format!("/v1/environments/{env}/configure"),
            None,
            None,
        );
        let sid = s["id"].as_str().unwrap().to_string();
        let app =
            json!({"?": {"id": "slow1", "type": "t.Slow"}, "name": "slow", "seconds": seconds});
        self.call(
            "POST",
            &format!("/v1/environments/{env}/services"),
            Some(&sid),
            Some(app),
        );
        self.call(
            "POST",
            &format!("/v1/environments/{env}/sessions/{sid}/deploy"),
            None,
            None,
        );
        let deps = self.call(
            "GET",
            &format!("/v1/environments/{env}/deployments"),
            None,
            None,
        );
        (
            env,
            deps["deployments"][0]["id"].as_str().unwrap().to_string(),
        )
    }

    fn reports(&self, env: &str, dep: &str) -> Vec<String> {
        let r = self.call(
            "GET",
            &format!("/v1/environments/{env}/deployments/{dep}"),
            None,
            None,
        );
        r["reports"]
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

    fn wait_report(&self, env: &str, dep: &str, text: &str, secs: u64) {
        let end = Instant::now() + Duration::from_secs(secs);
        while !self.reports(env, dep).iter().any(|r| r.contains(text)) {
            assert!(
                Instant::now() < end,
                "no report {text:?}: {:#?}",
                self.reports(env, dep)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits for the deployment to finish; returns its state.
    fn finished(&self, env: &str, dep: &str, secs: u64) -> String {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let deps = self.call(
                "GET",
                &format!("/v1/environments/{env}/deployments"),
                None,
                None,
            );
            let state = deps["deployments"][0]["state"]
                .as_str()
                .unwrap()
                .to_string();
            if !state.starts_with("running") {
                return state;
            }
            assert!(
                Instant::now() < end,
                "still {state}: {:#?}",
                self.reports(env, dep)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn status(&self, env: &str) -> String {
        let e = self.call("GET", &format!("/v1/environments/{env}"), None, None);
        e["status"].as_str().unwrap().to_string()
    }
}

/// A migrated database and an admin token on it.
fn setup(db: &str, url: &str) -> Api {
    let token = vetro(&[
        "token",
        "create",
        "--db",
        db,
        "--project",
        "p1",
        "--user",
        "u1",
        "--admin",
    ]);
    Api {
        url: url.into(),
        token: token.trim().to_string(),
        client: Client::new(),
    }
}

/// A fresh database for one test: a SQLite file in `dir`, or a new
/// PostgreSQL database when `pg` is set.
fn database(dir: &std::path::Path, pg: bool) -> Option<String> {
    if !pg {
        let db = format!("sqlite://{}", dir.join("vetro.db").display());
        vetro(&["db", "migrate", "--db", &db]);
        return Some(db);
    }
    let Ok(base) = std::env::var("VETRO_TEST_PG_URL") else {
        eprintln!("VETRO_TEST_PG_URL is not set: skipping the PostgreSQL run");
        return None;
    };
    let name = format!("vetro_crash_{}", std::process::id());
    let name = format!(
        "{name}_{}",
        dir.file_name()
            .unwrap()
            .to_string_lossy()
            .to_lowercase()
            .replace(['.', '-'], "_")
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let admin = vetro_store::Store::connect(&base).await.unwrap();
        vetro_store::sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(admin.pool())
            .await
            .unwrap();
        admin.close().await;
    });
    let (prefix, _) = base.rsplit_once('/').unwrap();
    let db = format!("{prefix}/{name}");
    vetro(&["db", "migrate", "--db", &db]);
    Some(db)
}

fn kill_worker_then_take_over(pg: bool) {
    let dir = tempfile::tempdir().unwrap();
    let Some(db) = database(dir.path(), pg) else {
        return;
    };
    let (_api_proc, url) = serve(&db, "0", dir.path());
    let api = setup(&db, &url);
    api.upload();
    let (env, dep) = api.deploy_slow(3);
    let mut first = worker(&db, dir.path(), "w1", &[]);
    api.wait_report(&env, &dep, "slow step started", 60);
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    assert_eq!(api.status(&env), "deploying");
    let _second = worker(&db, dir.path(), "w2", &[]);
    let state = api.finished(&env, &dep, 90);
    let reports = api.reports(&env, &dep);
    // The takeover's warning report makes it a success with warnings.
    assert_eq!(state, "completed_w_warnings", "{reports:#?}");
    assert!(
        reports.iter().any(|r| r.contains("takes it over")),
        "{reports:#?}"
    );
    assert_eq!(
        reports
            .iter()
            .filter(|r| r.contains("slow step done"))
            .count(),
        1,
        "{reports:#?}"
    );
    assert_eq!(api.status(&env), "ready");
    let model = api.call("GET", &format!("/v1/environments/{env}/model/"), None, None);
    assert_eq!(model["services"][0]["?"]["id"], "slow1");
}

#[test]
fn a_killed_worker_s_deployment_is_taken_over() {
    kill_worker_then_take_over(false);
}

#[test]
fn a_killed_worker_s_deployment_is_taken_over_on_postgres() {
    kill_worker_then_take_over(true);
}

#[test]
fn a_killed_worker_s_deployment_fails_when_no_attempts_are_left() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (_api_proc, url) = serve(&db, "0", dir.path());
    let api = setup(&db, &url);
    api.upload();
    let (env, dep) = api.deploy_slow(30);
    let mut first = worker(&db, dir.path(), "w1", &[]);
    api.wait_report(&env, &dep, "slow step started", 60);
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    let _second = worker(&db, dir.path(), "w2", &["--max-attempts", "1"]);
    let state = api.finished(&env, &dep, 60);
    let reports = api.reports(&env, &dep);
    assert_eq!(state, "completed_w_errors", "{reports:#?}");
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("error:") && r.contains("no attempts left")),
        "{reports:#?}"
    );
    assert_eq!(api.status(&env), "deploy failure");
}

#[test]
fn a_deployment_survives_a_killed_and_restarted_server() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (mut first, url) = serve(&db, "1", dir.path());
    let api = setup(&db, &url);
    api.upload();
    let (env, dep) = api.deploy_slow(3);
    api.wait_report(&env, &dep, "slow step started", 60);
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    let (_second, url) = serve(&db, "1", dir.path());
    let api = Api { url, ..api };
    let state = api.finished(&env, &dep, 90);
    let reports = api.reports(&env, &dep);
    // The takeover's warning report makes it a success with warnings.
    assert_eq!(state, "completed_w_warnings", "{reports:#?}");
    assert!(
        reports.iter().any(|r| r.contains("takes it over")),
        "{reports:#?}"
    );
    assert_eq!(api.status(&env), "ready");
}
