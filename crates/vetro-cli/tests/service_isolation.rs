//! Hostile tenants against the real service: a deployment that exhausts the
//! engine's stacks fails only itself (its engine runs in a process of its
//! own) and the next deployment of the same server runs; one project's
//! endless loop holds neither the other projects' deployments nor its own
//! project's bound of running tasks; two `vetro worker` processes on one
//! SQLite file lose no deployment to a lock.
#![cfg(unix)]

mod service;

use serde_json::{json, Value};
use service::{database, serve_with, setup, setup_project, worker, Api};
use std::time::{Duration, Instant};

const BOMB: &str = "Namespaces:\n  =: t\n  std: io.murano\nName: Bomb\nExtends: std:Application\n\
Methods:\n  deploy:\n    Body:\n      - $r: pselect(range(0, 200000), sleep(0))\n";

const LOOP: &str = "Namespaces:\n  =: t\n  std: io.murano\nName: Loop\nExtends: std:Application\n\
Methods:\n  deploy:\n    Body:\n      - While: 1 = 1\n        Do:\n          - $x: 1\n";

const HONEST: &str =
    "Namespaces:\n  =: t\n  std: io.murano\nName: Honest\nExtends: std:Application\n\
Methods:\n  deploy:\n    Body:\n      - $env: $this.find(std:Environment)\n      \
- $env.reporter.report($this, 'honest step done')\n";

fn app(id: &str, class: &str) -> Value {
    json!({"?": {"id": id, "type": class}, "name": id})
}

/// Seconds between two of the service's timestamps (`YYYY-MM-DDTHH:MM:SS.ffffff`).
fn seconds_between(from: &str, to: &str) -> f64 {
    let t = |s: &str| -> f64 {
        let (_, clock) = s.split_once('T').unwrap();
        let parts: Vec<f64> = clock.split(':').map(|p| p.parse().unwrap()).collect();
        parts[0] * 3600.0 + parts[1] * 60.0 + parts[2]
    };
    t(to) - t(from)
}

fn deployment(api: &Api, env: &str, dep: &str) -> Value {
    api.call(
        "GET",
        &format!("/v1/environments/{env}/deployments/{dep}"),
        None,
        None,
    )
}

#[test]
fn a_pselect_bomb_fails_its_own_task_and_the_next_deployment_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (mut server, url) = serve_with(&db, "1", dir.path(), &[]);
    let api = setup(&db, &url);
    api.upload_class("t.Bomb", BOMB);
    api.upload_class("t.Honest", HONEST);
    let (env, dep) = api.deploy_app("bomb", app("b1", "t.Bomb"));
    let state = api.finished(&env, &dep, 300);
    let reports = api.reports(&env, &dep);
    // Ends one way or the other, with an error report, never as a crash of the service.
    assert!(
        state == "success" || reports.iter().any(|r| r.starts_with("error:")),
        "{state}: {reports:#?}"
    );
    assert!(server.0.try_wait().unwrap().is_none(), "the server died");
    let (env, dep) = api.deploy_app("honest", app("h1", "t.Honest"));
    assert_eq!(api.finished(&env, &dep, 120), "success");
    assert!(server.0.try_wait().unwrap().is_none(), "the server died");
}

#[test]
fn an_engine_that_exhausts_its_memory_fails_with_the_limit_and_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (_server, url) = serve_with(&db, "1", dir.path(), &["--task-max-memory", "64"]);
    let api = setup(&db, &url);
    let hog = "Namespaces:\n  =: t\n  std: io.murano\nName: Hog\nExtends: std:Application\n\
Methods:\n  deploy:\n    Body:\n      - $s: x\n      - While: 1 = 1\n        Do:\n          \
- $s: $s + $s\n";
    api.upload_class("t.Hog", hog);
    api.upload_class("t.Honest", HONEST);
    let (env, dep) = api.deploy_app("hog", app("m1", "t.Hog"));
    assert_eq!(api.finished(&env, &dep, 120), "completed_w_errors");
    let reports = api.reports(&env, &dep);
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("error:") && r.contains("allocate more than 64 MiB")),
        "{reports:#?}"
    );
    let (env, dep) = api.deploy_app("honest", app("h1", "t.Honest"));
    assert_eq!(api.finished(&env, &dep, 120), "success");
}

#[test]
fn another_project_s_deploy_starts_at_once_while_a_loop_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (_server, url) = serve_with(
        &db,
        "2",
        dir.path(),
        &["--max-running-per-project", "1", "--task-timeout", "60"],
    );
    let hostile = setup(&db, &url);
    let honest = setup_project(&db, &url, "p2");
    hostile.upload_class("t.Loop", LOOP);
    honest.upload_class("t.Honest", HONEST);
    let (loop_env, loop_dep) = hostile.deploy_app("loop1", app("l1", "t.Loop"));
    // The second loop of the same project waits for the first: one at a time.
    let (loop2_env, loop2_dep) = hostile.deploy_app("loop2", app("l2", "t.Loop"));
    let end = Instant::now() + Duration::from_secs(30);
    while deployment(&hostile, &loop_env, &loop_dep)["reports"]
        .as_array()
        .is_none_or(|r| r.len() < 2)
    {
        assert!(Instant::now() < end, "the first loop never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (env, dep) = honest.deploy_app("web", app("h1", "t.Honest"));
    assert_eq!(honest.finished(&env, &dep, 30), "success");
    let list = honest.call(
        "GET",
        &format!("/v1/environments/{env}/deployments"),
        None,
        None,
    );
    let d = &list["deployments"][0];
    assert_eq!(d["id"], dep.as_str());
    let waited = seconds_between(
        d["created"].as_str().unwrap(),
        d["started"].as_str().unwrap(),
    );
    assert!(
        waited < 2.0,
        "queued {waited} s behind another project's loop"
    );
    let second = hostile.call(
        "GET",
        &format!("/v1/environments/{loop2_env}/deployments"),
        None,
        None,
    );
    assert_eq!(second["deployments"][0]["state"], "running", "{second:#}");
    let reports = hostile.reports(&loop2_env, &loop2_dep);
    assert_eq!(reports.len(), 1, "the second loop started: {reports:#?}");
}

#[test]
fn two_worker_processes_on_one_sqlite_file_lose_no_deployment() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (_server, url) = serve_with(&db, "0", dir.path(), &[]);
    let api = setup(&db, &url);
    api.upload_class("t.Honest", HONEST);
    let _w1 = worker(&db, dir.path(), "w1", &["--concurrency", "2"]);
    let _w2 = worker(&db, dir.path(), "w2", &["--concurrency", "2"]);
    let envs: Vec<(String, String)> = (0..8)
        .map(|i| api.deploy_app(&format!("e{i}"), app(&format!("h{i}"), "t.Honest")))
        .collect();
    let mut current = envs;
    for round in 0..3 {
        let mut next = Vec::new();
        for (env, dep) in &current {
            let state = api.finished(env, dep, 120);
            let reports = api.reports(env, dep);
            assert_eq!(state, "success", "round {round}: {reports:#?}");
            assert!(
                !reports.iter().any(|r| r.contains("locked")),
                "{reports:#?}"
            );
            if round < 2 {
                next.push((env.clone(), api.redeploy(env, None)));
            }
        }
        current = next;
    }
}

#[test]
fn a_separate_worker_takes_the_quota_options_serve_takes() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), false).unwrap();
    let (_server, url) = serve_with(&db, "0", dir.path(), &[]);
    let api = setup(&db, &url);
    let chatty = "Namespaces:\n  =: t\n  std: io.murano\nName: Chatty\nExtends: std:Application\n\
Methods:\n  deploy:\n    Body:\n      - $env: $this.find(std:Environment)\n      \
- For: i\n        In: range(0, 5)\n        Do:\n          - $env.reporter.report($this, step)\n";
    api.upload_class("t.Chatty", chatty);
    let _w = worker(&db, dir.path(), "w", &["--max-reports-per-task", "3"]);
    let (env, dep) = api.deploy_app("chatty", app("c1", "t.Chatty"));
    let state = api.finished(&env, &dep, 120);
    let reports = api.reports(&env, &dep);
    assert_eq!(state, "completed_w_errors", "{reports:#?}");
    assert!(
        reports
            .iter()
            .any(|r| r.starts_with("error:") && r.contains("reports_per_task")),
        "{reports:#?}"
    );
}
