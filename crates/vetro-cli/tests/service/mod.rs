//! What the service tests share: the `vetro` binary as `serve`, `worker` and
//! `token` processes, a fresh database (SQLite, or PostgreSQL when
//! `VETRO_TEST_PG_URL` is set), and a small client of the API.
#![allow(dead_code)]

use reqwest::blocking::{multipart, Client};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const VETRO: &str = env!("CARGO_BIN_EXE_vetro");

/// A deployment that takes `seconds` of wall time, busy in the engine.
pub const SLOW: &str = r#"Namespaces:
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

pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn vetro(args: &[&str]) -> String {
    let out = Command::new(VETRO).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "vetro {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Starts `vetro serve` on a free port; returns it and its base URL.
pub fn serve(db: &str, workers: &str, dir: &std::path::Path) -> (Proc, String) {
    serve_with(db, workers, dir, &[])
}

/// [`serve`] with more options.
pub fn serve_with(
    db: &str,
    workers: &str,
    dir: &std::path::Path,
    extra: &[&str],
) -> (Proc, String) {
    let mut cmd = serve_command(db, workers, dir, "2");
    cmd.args(extra)
        .env("VETRO_LOG", "warn")
        .stderr(Stdio::null());
    let (p, url, _) = start_serve(&mut cmd);
    (p, url)
}

/// `vetro serve` on `db` on a free port with `workers`, a lease of `lease`
/// seconds and its packages under `dir`; more options may follow.
pub fn serve_command(db: &str, workers: &str, dir: &std::path::Path, lease: &str) -> Command {
    let mut cmd = Command::new(VETRO);
    cmd.args(["serve", "--db", db, "--listen", "127.0.0.1:0"])
        .args([
            "--workers",
            workers,
            "--lease-seconds",
            lease,
            "--packages-dir",
        ])
        .arg(dir.join("packages-serve"));
    cmd
}

/// Starts `cmd`, a [`serve_command`]: the process, the base URL its banner
/// names, and the banner.
pub fn start_serve(cmd: &mut Command) -> (Proc, String, String) {
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (url, line) = banner(&mut out);
    (Proc(child), url, line)
}

/// The base URL in the first line `vetro serve` prints, and that line.
pub fn banner(out: &mut impl BufRead) -> (String, String) {
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in {line:?}"))
        .to_string();
    (url, line)
}

pub fn worker(db: &str, dir: &std::path::Path, name: &str, extra: &[&str]) -> Proc {
    let mut cmd = worker_command(db, dir, name);
    cmd.args(extra).env("VETRO_LOG", "warn");
    Proc(cmd.spawn().unwrap())
}

/// `vetro worker` on `db` with a lease of two seconds, its packages in
/// `dir/name`, its output discarded (a closed pipe would fail its first
/// print); more options may follow.
pub fn worker_command(db: &str, dir: &std::path::Path, name: &str) -> Command {
    let mut cmd = Command::new(VETRO);
    cmd.args([
        "worker",
        "--db",
        db,
        "--lease-seconds",
        "2",
        "--packages-dir",
    ])
    .arg(dir.join(name))
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    cmd
}

/// A zip archive of `files` (name, content).
pub fn zip_of(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    vetro_dsl::package::write_zip(files.iter().map(|(n, d)| (n, d))).unwrap()
}

pub struct Api {
    pub url: String,
    pub token: String,
    pub client: Client,
}

impl Api {
    pub fn call(
        &self,
        method: &str,
        path: &str,
        session: Option<&str>,
        body: Option<Value>,
    ) -> Value {
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

    pub fn upload(&self) {
        self.upload_class("t.Slow", SLOW);
    }

    /// Uploads a package `fqn` with one application class `fqn` defined by `class`.
    pub fn upload_class(&self, fqn: &str, class: &str) {
        let name = fqn.rsplit_once('.').map_or(fqn, |(_, n)| n);
        let manifest = format!(
            "Format: MuranoPL/1.4\nType: Application\nFullName: {fqn}\nName: {name}\n\
             Author: vetro\nClasses:\n  {fqn}: {name}.yaml\n"
        );
        let class_file = format!("Classes/{name}.yaml");
        let files = [
            ("manifest.yaml".to_string(), manifest.into_bytes()),
            (class_file, class.as_bytes().to_vec()),
        ];
        self.upload_archive(fqn, zip_of(&files));
    }

    /// Uploads the package folder `dir` (its files zipped) as `fqn`.
    pub fn upload_dir(&self, fqn: &str, dir: &std::path::Path) {
        let mut files = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    todo.push(path);
                } else {
                    let name = path
                        .strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .to_string();
                    files.push((name, std::fs::read(&path).unwrap()));
                }
            }
        }
        self.upload_archive(fqn, zip_of(&files));
    }

    /// Uploads a package archive as `fqn`.
    pub fn upload_archive(&self, fqn: &str, zip: Vec<u8>) {
        let form = multipart::Form::new().part(
            fqn.to_string(),
            multipart::Part::bytes(zip).file_name("package.zip"),
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
    pub fn deploy_slow(&self, seconds: i64) -> (String, String) {
        let app =
            json!({"?": {"id": "slow1", "type": "t.Slow"}, "name": "slow", "seconds": seconds});
        self.deploy_app("e1", app)
    }

    /// Creates environment `name` with `app` and deploys it; returns the
    /// environment's and the deployment's ids.
    pub fn deploy_app(&self, name: &str, app: Value) -> (String, String) {
        let env = self.call(
            "POST",
            "/v1/environments",
            None,
            Some(json!({"name": name})),
        );
        let env = env["id"].as_str().unwrap().to_string();
        let dep = self.redeploy(&env, Some(app));
        (env, dep)
    }

    /// Opens a session on `env`, adds `app` when given, deploys; returns the deployment's id.
    pub fn redeploy(&self, env: &str, app: Option<Value>) -> String {
        let s = self.call(
            "POST",
            &format!("/v1/environments/{env}/configure"),
            None,
            None,
        );
        let sid = s["id"].as_str().unwrap().to_string();
        if let Some(app) = app {
            self.call(
                "POST",
                &format!("/v1/environments/{env}/services"),
                Some(&sid),
                Some(app),
            );
        }
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
        deps["deployments"][0]["id"].as_str().unwrap().to_string()
    }

    pub fn reports(&self, env: &str, dep: &str) -> Vec<String> {
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

    pub fn wait_report(&self, env: &str, dep: &str, text: &str, secs: u64) {
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
    pub fn finished(&self, env: &str, dep: &str, secs: u64) -> String {
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

    pub fn status(&self, env: &str) -> String {
        let e = self.call("GET", &format!("/v1/environments/{env}"), None, None);
        e["status"].as_str().unwrap().to_string()
    }
}

/// A migrated database and an admin token on it.
pub fn setup(db: &str, url: &str) -> Api {
    setup_project(db, url, "p1")
}

/// A client with an admin token of `project`.
pub fn setup_project(db: &str, url: &str, project: &str) -> Api {
    let token = vetro(&[
        "token",
        "create",
        "--db",
        db,
        "--project",
        project,
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
pub fn database(dir: &std::path::Path, pg: bool) -> Option<String> {
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
