//! Crash safety of the service, with real processes: an engine worker (or the
//! whole `vetro serve`) is killed with SIGKILL in the middle of a deployment,
//! and the deployment is taken over by another worker once the lease expires,
//! or failed with a clear report when no attempts are left. The session
//! never stays `deploying`. Runs on SQLite, and on PostgreSQL too when
//! `VETRO_TEST_PG_URL` is set.
#![cfg(unix)]

mod service;

use service::{database, serve, setup, worker, Api};

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
