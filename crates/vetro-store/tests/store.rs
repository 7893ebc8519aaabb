//! One store test suite for both backends: SQLite always, PostgreSQL when
//! `VETRO_TEST_PG_URL` points at a server where a fresh database may be created.

use serde_json::json;
use vetro_store::catalog::{NewPackage, Package};
use vetro_store::page::PageRequest;
use vetro_store::queue::{NewReport, NewTask, TaskKind};
use vetro_store::tasks::{Completion, Finish, LeaseState, Reaped};
use vetro_store::tokens::Principal;
use vetro_store::{environments, Store, StoreError};

async fn sqlite() -> Store {
    let s = Store::connect("sqlite::memory:").await.expect("sqlite");
    s.migrate().await.expect("migrate sqlite");
    s
}

/// A SQLite file (kept until the store is dropped at the end of the test):
/// one writer and separate read connections.
async fn sqlite_file() -> (Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    let s = Store::connect(&url).await.expect("sqlite file");
    s.migrate().await.expect("migrate sqlite file");
    (s, dir)
}

/// A fresh database on the PostgreSQL server, or `None` (with a message) when
/// `VETRO_TEST_PG_URL` is unset.
async fn postgres() -> Option<Store> {
    let url = postgres_url().await?;
    let s = Store::connect(&url).await.expect("connect test db");
    s.migrate().await.expect("migrate postgres");
    Some(s)
}

/// The URL of a fresh database on the PostgreSQL server, or `None` (with a
/// message) when `VETRO_TEST_PG_URL` is unset.
async fn postgres_url() -> Option<String> {
    let Ok(base) = std::env::var("VETRO_TEST_PG_URL") else {
        eprintln!("VETRO_TEST_PG_URL is not set: skipping the PostgreSQL run of this test");
        return None;
    };
    let admin = Store::connect(&base)
        .await
        .expect("connect to VETRO_TEST_PG_URL");
    let name = format!("vetro_test_{}", vetro_store::new_id());
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(admin.pool())
        .await
        .expect("create test database");
    admin.close().await;
    let (prefix, _) = base.rsplit_once('/').expect("URL with a database name");
    Some(format!("{prefix}/{name}"))
}

macro_rules! both {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite { $( #[tokio::test] async fn $name() { super::$name(super::sqlite().await).await } )* }
        mod on_sqlite_file { $( #[tokio::test] async fn $name() {
            let (s, _dir) = super::sqlite_file().await;
            super::$name(s).await
        } )* }
        mod on_postgres { $( #[tokio::test] async fn $name() {
            if let Some(s) = super::postgres().await { super::$name(s).await }
        } )* }
    };
}

both!(
    tokens_are_hashed_and_resolve,
    pages_show_every_change,
    packages_are_found_by_class_and_name_through_the_index,
    environments_are_unique_per_project,
    environment_list_carries_each_status,
    stored_status_follows_every_session_change,
    listings_come_in_pages,
    reads_see_every_committed_write,
    migrate_twice_is_a_no_op,
    deploy_queues_one_task_and_refuses_a_second,
    session_opened_before_a_deploy_is_invalid,
    reports_are_keyed_by_task,
    packages_conflict_and_categories,
    catalog_search_ranks_filters_and_pages,
    templates_and_environment_from_template,
    policies_set_and_clear,
    deleting_an_environment_removes_its_rows,
    pinned_packages_keep_the_first_pin,
    claims_leases_and_results,
    expired_leases_are_requeued_then_failed,
    tasks_keep_the_trust_they_act_through,
);

#[tokio::test]
async fn sqlite_file_pages_follow_other_stores_writes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    pages_follow_other_stores_writes(&url).await;
}

#[tokio::test]
async fn postgres_pages_follow_other_stores_writes() {
    if let Some(url) = postgres_url().await {
        pages_follow_other_stores_writes(&url).await;
    }
}

/// Every write that a list page shows, by another store on the same
/// database (another `vetro serve` or `vetro worker` process), changes the
/// lists' version a first store reads: what lets the server keep a page
/// while the version stands.
async fn pages_follow_other_stores_writes(url: &str) {
    use std::time::Duration;
    let reader = Store::connect(url).await.unwrap();
    reader.migrate().await.unwrap();
    let writer = Store::connect(url).await.unwrap();
    async fn pages(s: &Store) -> Vec<String> {
        let first = || PageRequest::first(10);
        let query = |project: &str| vetro_store::search::PackageQuery {
            project_id: project.into(),
            ..Default::default()
        };
        let mut out = Vec::new();
        for project in ["p1", "p2"] {
            let envs = s.list_environment_summaries(Some(project), &first()).await;
            out.push(format!("{:?}", envs.unwrap().items));
            let deps = s.list_deployments(None, project, &first()).await.unwrap();
            let deps: Vec<String> = deps
                .items
                .iter()
                .map(|d| format!("{} {} {}", d.task.id, d.task.state, d.state()))
                .collect();
            out.push(deps.join(","));
            let templates = s.template_page(project, None, &first()).await;
            out.push(format!("{:?}", templates.unwrap().items));
            let packages = s.search_packages(&query(project), &first()).await;
            out.push(format!("{:?}", packages.unwrap().items));
        }
        out
    }
    let versions = |s: &Store| {
        let s = s.clone();
        async move {
            vec![
                s.list_version("p1").await.unwrap(),
                s.list_version("p2").await.unwrap(),
            ]
        }
    };
    let mut last = (versions(&reader).await, pages(&reader).await);
    let mut agree = |seen: (Vec<i64>, Vec<String>), what: &str| {
        for (i, page) in seen.1.iter().enumerate() {
            if *page != last.1[i] {
                let project = i / 4;
                assert_ne!(seen.0[project], last.0[project], "{what}: page {i} changed");
            }
        }
        last = seen.clone();
        seen.1
    };
    macro_rules! agree {
        ($what:expr) => {
            agree((versions(&reader).await, pages(&reader).await), $what)
        };
    }
    let before = agree!("empty");
    let e = env(&writer, "first").await;
    let after = agree!("an environment created");
    assert_ne!(before[0], after[0]);
    writer.rename_environment(&e.id, "renamed").await.unwrap();
    assert!(agree!("renamed")[0].contains("renamed"));
    let session = writer.open_session(&e.id, "alice").await.unwrap();
    assert!(agree!("a session opened")[0].contains("pending"));
    let task = writer
        .deploy_session(&session.id, "p1", None)
        .await
        .unwrap();
    assert!(agree!("a deploy queued")[1].contains(&task));
    let lease = Duration::from_secs(60);
    let claimed = writer.claim_task("w", lease).await.unwrap().unwrap();
    assert!(agree!("claimed")[1].contains(" running "));
    let report = NewReport {
        entity_id: "x".into(),
        entity: "environment".into(),
        text: "an error".into(),
        level: "error".into(),
        details: None,
    };
    writer.report_as(&task, "w", &report).await.unwrap();
    assert!(agree!("an error reported")[1].contains("running_w_errors"));
    let completion = empty_success();
    assert!(writer
        .complete_task(&claimed, "w", &completion)
        .await
        .unwrap());
    assert!(agree!("finished")[1].contains("completed_w_errors"));
    // What every project sees: another project's public template and package.
    let model = json!({"name": "t", "services": []});
    writer
        .create_template("p1", "shared", "", &model, true)
        .await
        .unwrap();
    assert!(agree!("a public template")[6].contains("shared"));
    let web = writer
        .insert_package(&pkg("p1", "org.web", &["org.web.Server"], false))
        .await
        .unwrap();
    assert!(!agree!("a private package")[7].contains("org.web"));
    let mut public = writer.get_package(&web.id).await.unwrap();
    public.is_public = true;
    writer.update_package(&public).await.unwrap();
    assert!(agree!("published")[7].contains("org.web"));
    writer.add_category("Web").await.unwrap();
    public.categories = vec!["Web".into()];
    writer.update_package(&public).await.unwrap();
    assert!(agree!("a category added")[7].contains("\"Web\""));
    writer.delete_environment(&e.id).await.unwrap();
    let gone = agree!("the environment deleted");
    assert!(!gone[0].contains(&e.id) && !gone[1].contains(&task));
}

/// The Keystone trust a task was submitted with reaches the worker that
/// claims it; tasks submitted without one have none.
async fn tasks_keep_the_trust_they_act_through(s: Store) {
    let e = env(&s, "t").await;
    let sess = s.open_session(&e.id, "alice").await.unwrap();
    let id = s
        .deploy_session(&sess.id, "p1", Some("trust-1"))
        .await
        .unwrap();
    assert_eq!(
        s.get_task(&id).await.unwrap().trust_id.as_deref(),
        Some("trust-1")
    );
    let lease = std::time::Duration::from_secs(30);
    let t = s.claim_task("w1", lease).await.unwrap().expect("a task");
    assert_eq!(
        (t.id.as_str(), t.trust_id.as_deref()),
        (id.as_str(), Some("trust-1"))
    );
    let other = env(&s, "u").await;
    let (_, action) = s
        .submit_in_new_session(
            &other.id,
            "alice",
            "p1",
            TaskKind::Action,
            json!({"object_id": "x", "method": "m", "args": {}}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(s.get_task(&action).await.unwrap().trust_id, None);
}

fn alice() -> Principal {
    Principal {
        project_id: "p1".into(),
        user_id: "alice".into(),
        is_admin: false,
    }
}

async fn env(s: &Store, name: &str) -> environments::Environment {
    let model = environments::initial_model("x", name, "p1", "alice", &json!({}));
    s.create_environment("p1", name, &model, None)
        .await
        .expect("create env")
}

async fn tokens_are_hashed_and_resolve(s: Store) {
    let t = s.create_token(&alice()).await.unwrap();
    assert_eq!(t.len(), 64);
    assert_eq!(s.authenticate(&t).await.unwrap(), Some(alice()));
    assert_eq!(s.authenticate("nope").await.unwrap(), None);
    let stored: Vec<(String,)> = sqlx::query_as("SELECT token_hash FROM tokens")
        .fetch_all(s.pool())
        .await
        .unwrap();
    assert!(
        stored.iter().all(|(h,)| h != &t),
        "the token itself is never stored"
    );
    assert!(matches!(
        s.create_token(&Principal {
            project_id: String::new(),
            ..alice()
        })
        .await,
        Err(StoreError::Invalid(_))
    ));
}

async fn migrate_twice_is_a_no_op(s: Store) {
    s.migrate().await.unwrap();
    s.ping().await.unwrap();
}

async fn environments_are_unique_per_project(s: Store) {
    let e = env(&s, "one").await;
    assert_eq!(e.model["Objects"]["?"]["id"], json!(e.id));
    let dup = s
        .create_environment("p1", "one", &json!({"Objects": null}), None)
        .await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    s.create_environment("p2", "one", &json!({"Objects": null}), None)
        .await
        .expect("same name in another project");
    assert_eq!(s.list_environments(Some("p1")).await.unwrap().len(), 1);
    assert_eq!(s.list_environments(None).await.unwrap().len(), 2);
    let renamed = s.rename_environment(&e.id, "uno").await.unwrap();
    assert_eq!(renamed.name, "uno");
    assert_eq!(renamed.model["Objects"]["name"], json!("uno"));
    env(&s, "two").await;
    assert!(matches!(
        s.rename_environment(&e.id, "two").await,
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        s.get_environment("missing").await,
        Err(StoreError::NotFound(_))
    ));
}

/// A page large enough for every row of a test.
fn all() -> PageRequest {
    PageRequest::first(1000)
}

async fn environment_list_carries_each_status(s: Store) {
    let ready = env(&s, "ready").await;
    let pending = env(&s, "pending").await;
    let deploying = env(&s, "deploying").await;
    s.create_environment("p2", "elsewhere", &json!({"Objects": null}), None)
        .await
        .unwrap();
    s.open_session(&pending.id, "alice").await.unwrap();
    s.open_session(&deploying.id, "alice").await.unwrap();
    let d = s.open_session(&deploying.id, "alice").await.unwrap();
    s.deploy_session(&d.id, "p1", None).await.unwrap();
    let list = s
        .list_environment_summaries(Some("p1"), &all())
        .await
        .unwrap()
        .items;
    let got: Vec<(&str, &str)> = list
        .iter()
        .map(|e| (e.name.as_str(), e.status.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("ready", "ready"),
            ("pending", "pending"),
            ("deploying", "deploying")
        ]
    );
    for (summary, e) in list.iter().zip([&ready, &pending, &deploying]) {
        assert_eq!(
            (
                &summary.id,
                &summary.project_id,
                summary.version,
                &summary.created
            ),
            (&e.id, &e.project_id, e.version, &e.created)
        );
        let marks = s.session_marks(&e.id).await.unwrap();
        assert_eq!(summary.status, environments::status_of(&marks));
    }
    assert_eq!(
        s.list_environment_summaries(None, &all())
            .await
            .unwrap()
            .items
            .len(),
        4
    );
    assert!(s
        .list_environment_summaries(Some("nobody"), &all())
        .await
        .unwrap()
        .items
        .is_empty());
}

/// The status kept in the environment's row (what the list shows) equals
/// [`environments::status_of`] over its sessions after every kind of change.
async fn stored_status_follows_every_session_change(s: Store) {
    let e = env(&s, "e").await;
    let listed = || async {
        let list = s.list_environment_summaries(Some("p1"), &all()).await;
        let status = list.unwrap().items[0].status.clone();
        let marks = s.session_marks(&e.id).await.unwrap();
        assert_eq!(status, environments::status_of(&marks), "{marks:?}");
        status
    };
    let set_state = |id: String, state: &'static str| {
        let s = s.clone();
        async move {
            let mut tx = s.begin().await.unwrap();
            vetro_store::sessions::set_state(&mut tx, &id, state)
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
    };
    assert_eq!(listed().await, "ready");
    let a = s.open_session(&e.id, "alice").await.unwrap();
    assert_eq!(listed().await, "pending");
    s.update_session_model(&a.id, &json!({"Objects": {"x": 1}}))
        .await
        .unwrap();
    assert_eq!(listed().await, "pending");
    s.deploy_session(&a.id, "p1", None).await.unwrap();
    assert_eq!(listed().await, "deploying");
    set_state(a.id.clone(), "deployed").await;
    assert_eq!(listed().await, "ready");
    let b = s.open_session(&e.id, "alice").await.unwrap();
    assert_eq!(listed().await, "pending");
    s.delete_session(&b.id).await.unwrap();
    assert_eq!(listed().await, "ready");
    set_state(a.id.clone(), "deploy failure").await;
    assert_eq!(listed().await, "deploy failure");
    s.open_session(&e.id, "alice").await.unwrap();
    assert_eq!(listed().await, "deploy failure");
    set_state(a.id.clone(), "deleting").await;
    assert_eq!(listed().await, "deleting");
}

/// Every page of every listing, following `marker` as a client does.
async fn listings_come_in_pages(s: Store) {
    let mut envs = Vec::new();
    for i in 0..5 {
        envs.push(env(&s, &format!("e{i}")).await.id);
    }
    s.create_environment("p2", "other", &json!({"Objects": null}), None)
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut page = PageRequest::first(2);
    loop {
        let p = s
            .list_environment_summaries(Some("p1"), &page)
            .await
            .unwrap();
        assert!(p.items.len() <= 2);
        seen.extend(p.items.iter().map(|e| e.id.clone()));
        if !p.more {
            break;
        }
        page.marker = Some(p.items.last().unwrap().id.clone());
    }
    assert_eq!(seen, envs);
    // A page ending exactly at the last item says no more follow.
    let p = s
        .list_environment_summaries(Some("p1"), &PageRequest::first(5))
        .await
        .unwrap();
    assert_eq!((p.items.len(), p.more), (5, false));
    // Another project's environment is no marker of this listing.
    let theirs = s
        .list_environment_summaries(Some("p2"), &all())
        .await
        .unwrap()
        .items;
    let foreign = PageRequest {
        limit: 2,
        marker: Some(theirs[0].id.clone()),
    };
    assert!(matches!(
        s.list_environment_summaries(Some("p1"), &foreign).await,
        Err(StoreError::Invalid(_))
    ));

    // Deployments, newest first, over three environments.
    let mut tasks = Vec::new();
    for e in &envs[..3] {
        let session = s.open_session(e, "alice").await.unwrap();
        tasks.push(s.deploy_session(&session.id, "p1", None).await.unwrap());
    }
    let mut seen = Vec::new();
    let mut page = PageRequest::first(2);
    loop {
        let p = s.list_deployments(None, "p1", &page).await.unwrap();
        seen.extend(p.items.iter().map(|d| d.task.id.clone()));
        if !p.more {
            break;
        }
        page.marker = Some(p.items.last().unwrap().task.id.clone());
    }
    let newest_first: Vec<String> = {
        let all = s.list_deployments(None, "p1", &all()).await.unwrap().items;
        all.iter().map(|d| d.task.id.clone()).collect()
    };
    assert_eq!(seen, newest_first);
    tasks.sort();
    seen.sort();
    assert_eq!(seen, tasks);
    let other_env = PageRequest {
        limit: 2,
        marker: Some(tasks[0].clone()),
    };
    let own = s.get_task(&tasks[0]).await.unwrap().environment_id.unwrap();
    let elsewhere = envs.iter().find(|e| **e != own).unwrap();
    assert!(matches!(
        s.list_deployments(Some(elsewhere), "p1", &other_env).await,
        Err(StoreError::Invalid(_))
    ));

    // Reports, oldest first, all of them or those about some objects.
    let t = &tasks[0];
    for i in 0..5 {
        let r = NewReport {
            entity_id: format!("obj{}", i % 2),
            entity: "unit".into(),
            text: format!("r{i}"),
            level: "info".into(),
            details: None,
        };
        s.report(t, &r).await.unwrap();
    }
    let texts = |p: &vetro_store::page::Page<vetro_store::queue::Report>| -> Vec<String> {
        p.items.iter().map(|r| r.text.clone()).collect()
    };
    let first = s
        .reports_page(t, None, &PageRequest::first(4))
        .await
        .unwrap();
    assert_eq!(
        texts(&first),
        ["Action deploy is scheduled", "r0", "r1", "r2"]
    );
    assert!(first.more);
    let next = PageRequest {
        limit: 4,
        marker: Some(first.items[3].id.clone()),
    };
    let second = s.reports_page(t, None, &next).await.unwrap();
    assert_eq!(
        (texts(&second), second.more),
        (vec!["r3".to_string(), "r4".into()], false)
    );
    let obj1: std::collections::HashSet<&str> = ["obj1"].into();
    let only = s
        .reports_page(t, Some(&obj1), &PageRequest::first(1))
        .await
        .unwrap();
    assert_eq!((texts(&only), only.more), (vec!["r1".to_string()], true));
    let next = PageRequest {
        limit: 1,
        marker: Some(only.items[0].id.clone()),
    };
    let only = s.reports_page(t, Some(&obj1), &next).await.unwrap();
    assert_eq!((texts(&only), only.more), (vec!["r3".to_string()], false));
}

/// Reads outside transactions may go to other connections than writes; each
/// one sees what was committed before it, also with writers running at once.
async fn reads_see_every_committed_write(s: Store) {
    let mut writers = Vec::new();
    for w in 0..4 {
        let s = s.clone();
        writers.push(tokio::spawn(async move {
            for i in 0..10 {
                let e = s
                    .create_environment("p1", &format!("w{w}-{i}"), &json!({"Objects": null}), None)
                    .await
                    .unwrap();
                assert_eq!(s.get_environment(&e.id).await.unwrap().name, e.name);
                let session = s.open_session(&e.id, "alice").await.unwrap();
                assert_eq!(s.get_session(&session.id).await.unwrap().state, "opened");
                let t = s.create_token(&alice()).await.unwrap();
                assert_eq!(s.authenticate(&t).await.unwrap(), Some(alice()));
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let list = s
        .list_environment_summaries(Some("p1"), &all())
        .await
        .unwrap()
        .items;
    assert_eq!(list.len(), 40);
    assert!(list.iter().all(|e| e.status == "pending"));
}

async fn deploy_queues_one_task_and_refuses_a_second(s: Store) {
    let e = env(&s, "d").await;
    let a = s.open_session(&e.id, "alice").await.unwrap();
    let b = s.open_session(&e.id, "alice").await.unwrap();
    assert_eq!(
        environments::status_of(&s.session_marks(&e.id).await.unwrap()),
        "pending"
    );
    let task = s.deploy_session(&a.id, "p1", None).await.unwrap();
    let marks = s.session_marks(&e.id).await.unwrap();
    assert_eq!(environments::status_of(&marks), "deploying");
    assert_eq!(environments::acquired_by(&marks), Some(a.id.clone()));
    let t = s.get_task(&task).await.unwrap();
    assert_eq!((t.kind, t.state.as_str()), (TaskKind::Deploy, "queued"));
    assert_eq!(t.payload["method"], json!("deploy"));
    // Another session cannot deploy while this one is running...
    assert!(matches!(
        s.deploy_session(&b.id, "p1", None).await,
        Err(StoreError::Forbidden(_))
    ));
    // ...and the database itself refuses a second active task.
    let direct = s
        .enqueue(&NewTask {
            project_id: "p1".into(),
            environment_id: Some(e.id.clone()),
            session_id: None,
            user_id: "alice".into(),
            kind: TaskKind::Action,
            payload: json!({}),
            description: None,
            trust_id: None,
        })
        .await;
    assert!(
        matches!(direct, Err(StoreError::Forbidden(_))),
        "{direct:?}"
    );
    // The same session cannot be deployed twice.
    assert!(matches!(
        s.deploy_session(&a.id, "p1", None).await,
        Err(StoreError::Forbidden(_))
    ));
    let deps = s
        .list_deployments(Some(&e.id), "p1", &all())
        .await
        .unwrap()
        .items;
    assert_eq!(deps.len(), 1);
    assert_eq!(deps[0].state(), "running");
    assert!(s
        .list_deployments(Some(&e.id), "p2", &all())
        .await
        .unwrap()
        .items
        .is_empty());
    assert!(s.request_cancel(&task).await.unwrap());
    assert!(s.get_task(&task).await.unwrap().cancel_requested);
}

async fn session_opened_before_a_deploy_is_invalid(s: Store) {
    let e = env(&s, "v").await;
    let old = s.open_session(&e.id, "alice").await.unwrap();
    assert_eq!(s.session_invalid_reason(&old).await.unwrap(), None);
    sqlx::query("UPDATE environments SET version = version + 1 WHERE id = $1")
        .bind(&e.id)
        .execute(s.pool())
        .await
        .unwrap();
    assert!(s.session_invalid_reason(&old).await.unwrap().is_some());
    assert!(matches!(
        s.deploy_session(&old.id, "p1", None).await,
        Err(StoreError::Forbidden(_))
    ));
    // A session without objects is a deletion.
    let del = s.open_session(&e.id, "alice").await.unwrap();
    s.update_session_model(&del.id, &json!({"Objects": null}))
        .await
        .unwrap();
    let t = s.deploy_session(&del.id, "p1", None).await.unwrap();
    assert_eq!(s.get_task(&t).await.unwrap().kind, TaskKind::Delete);
    assert_eq!(s.get_session(&del.id).await.unwrap().state, "deleting");
    assert!(matches!(
        s.delete_session(&del.id).await,
        Err(StoreError::Forbidden(_))
    ));
    s.delete_session(&old.id).await.unwrap();
    assert!(matches!(
        s.get_session(&old.id).await,
        Err(StoreError::NotFound(_))
    ));
}

async fn reports_are_keyed_by_task(s: Store) {
    let e = env(&s, "r").await;
    let a = s.open_session(&e.id, "alice").await.unwrap();
    let t = s.deploy_session(&a.id, "p1", None).await.unwrap();
    let warn = NewReport {
        entity_id: "obj".into(),
        entity: "unit".into(),
        text: "careful".into(),
        level: "warning".into(),
        details: None,
    };
    assert_eq!(s.report(&t, &warn).await.unwrap(), 2);
    let reports = s.reports(&t).await.unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[0].text, "Action deploy is scheduled");
    assert_eq!(reports[1].level, "warning");
    assert_eq!(s.reports_after(&t, 1).await.unwrap().len(), 1);
    let newest = s.newest_report(&e.id, &["other", "obj"]).await.unwrap();
    assert_eq!(newest.unwrap().text, "careful");
    assert!(s.newest_report(&e.id, &["other"]).await.unwrap().is_none());
    let deps = s.list_deployments(None, "p1", &all()).await.unwrap().items;
    assert_eq!(deps[0].state(), "running_w_warnings");
}

/// What the API's pages show, read as typed rows after every kind of
/// change that shows in them: environment statuses, template changes,
/// deployment states from their reports, package categories in order.
async fn pages_show_every_change(s: Store) {
    use std::time::Duration;
    let mut envs = Vec::new();
    for i in 0..4 {
        envs.push(env(&s, &format!("e{i}")).await.id);
    }
    s.open_session(&envs[1], "alice").await.unwrap();
    let session = s.open_session(&envs[2], "alice").await.unwrap();
    let queued = s.deploy_session(&session.id, "p1", None).await.unwrap();
    s.rename_environment(&envs[3], "renamed \"quoted\"")
        .await
        .unwrap();
    let session = s.open_session(&envs[0], "alice").await.unwrap();
    let done = s.deploy_session(&session.id, "p1", None).await.unwrap();

    let rows = s
        .list_environment_summaries(Some("p1"), &PageRequest::first(10))
        .await
        .unwrap();
    assert!(!rows.more);
    let statuses: Vec<&str> = rows.items.iter().map(|e| e.status.as_str()).collect();
    assert_eq!(statuses, ["deploying", "pending", "deploying", "ready"]);
    assert_eq!(rows.items[3].name, "renamed \"quoted\"");
    let short = s
        .list_environment_summaries(Some("p1"), &PageRequest::first(3))
        .await
        .unwrap();
    assert!(short.more);
    assert_eq!(short.items.last().unwrap().id, envs[2]);

    // Templates, public and private, one of them changed.
    let model = json!({"name": "t", "services": []});
    let t1 = s
        .create_template("p1", "t1", "first", &model, false)
        .await
        .unwrap();
    let mut t2 = s
        .create_template("p2", "t2", "", &model, true)
        .await
        .unwrap();
    t2.description_text = "now described".into();
    s.update_template(&t2).await.unwrap();
    let page = s
        .template_page("p1", None, &PageRequest::first(10))
        .await
        .unwrap();
    let seen: Vec<(&str, &str)> = page
        .items
        .iter()
        .map(|t| (t.id.as_str(), t.description_text.as_str()))
        .collect();
    assert_eq!(
        seen,
        [(t1.id.as_str(), "first"), (t2.id.as_str(), "now described")]
    );
    let public = s
        .template_page("p1", Some(true), &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(public.items.len(), 1);

    // Deployments: one finished with a warning, one running with an error.
    let claimed = s
        .claim_task("w", Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, queued, "the oldest first");
    let report = |level: &str| NewReport {
        entity_id: "x".into(),
        entity: "environment".into(),
        text: format!("a {level}"),
        level: level.into(),
        details: None,
    };
    s.report_as(&queued, "w", &report("warning")).await.unwrap();
    let completion = empty_success();
    assert!(s.complete_task(&claimed, "w", &completion).await.unwrap());
    let running = s
        .claim_task("w", Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(running.id, done);
    s.report_as(&done, "w", &report("error")).await.unwrap();
    let rows = s.list_deployments(None, "p1", &all()).await.unwrap().items;
    let states: Vec<&str> = rows.iter().map(|d| d.state()).collect();
    assert_eq!(states, ["running_w_errors", "completed_w_warnings"]);
    let one_env = s
        .list_deployments(Some(&envs[2]), "p1", &PageRequest::first(10))
        .await
        .unwrap();
    assert_eq!(one_env.items[0].task.id, queued);
    let foreign = PageRequest {
        limit: 1,
        marker: Some(queued.clone()),
    };
    assert!(matches!(
        s.list_deployments(Some(&envs[1]), "p1", &foreign).await,
        Err(StoreError::Invalid(_))
    ));

    // Packages, with their categories (in order) after a change.
    s.add_category("Web").await.unwrap();
    s.add_category("Databases").await.unwrap();
    let mut web = pkg("p1", "org.web", &["org.web.Server"], false);
    web.meta.categories = vec!["Web".into()];
    let web = s.insert_package(&web).await.unwrap();
    s.insert_package(&pkg("p2", "org.db", &["org.db.Sql"], true))
        .await
        .unwrap();
    let mut changed = s.get_package(&web.id).await.unwrap();
    changed.categories = vec!["Web".into(), "Databases".into()];
    changed.is_public = true;
    s.update_package(&changed).await.unwrap();
    let query = vetro_store::search::PackageQuery {
        project_id: "p1".into(),
        ..Default::default()
    };
    let first = s
        .search_packages(&query, &PageRequest::first(1))
        .await
        .unwrap();
    assert_eq!(first.items[0].name, "org.db", "by name");
    assert!(first.more);
    let rest = PageRequest {
        limit: 5,
        marker: Some(first.items[0].id.clone()),
    };
    let second = s.search_packages(&query, &rest).await.unwrap();
    assert_eq!(second.items[0].categories, ["Databases", "Web"]);
    assert!(second.items[0].is_public);
}

/// The indexed lookup answers exactly the visible packages that define a
/// class or have a name, and forgets a deleted package's classes.
async fn packages_are_found_by_class_and_name_through_the_index(s: Store) {
    use vetro_store::lookup::PackageKey::{Class, Name};
    let fqns = |v: Vec<Package>| {
        v.into_iter()
            .map(|p| format!("{}/{}", p.owner_id, p.fully_qualified_name))
            .collect::<Vec<_>>()
    };
    s.add_category("Web").await.unwrap();
    // A catalog of unrelated packages that a lookup must not read.
    for n in 0..30 {
        let class = format!("noise{n}.C");
        s.insert_package(&pkg("p9", &format!("noise{n}"), &[&class], n % 2 == 0))
            .await
            .unwrap();
    }
    let mut web = pkg(
        "p1",
        "org.web",
        &["org.web.Server", "org.web.Site", "org.web.Server"],
        false,
    );
    web.meta.categories = vec!["Web".into()];
    let web = s.insert_package(&web).await.unwrap();
    s.insert_package(&pkg("p2", "org.web", &["org.web.Server"], false))
        .await
        .unwrap();
    let lib = s
        .insert_package(&pkg("p3", "org.lib", &["org.lib.Util"], true))
        .await
        .unwrap();

    let found = s
        .visible_packages_with("p1", Class("org.web.Server"))
        .await
        .unwrap();
    assert_eq!(
        fqns(found.clone()),
        vec!["p1/org.web"],
        "p2's private copy is not p1's"
    );
    assert_eq!(found[0].categories, vec!["Web".to_string()]);
    assert_eq!(found[0].class_definitions.len(), 3, "metadata as stored");
    assert_eq!(
        fqns(
            s.visible_packages_with("p2", Name("org.web"))
                .await
                .unwrap()
        ),
        vec!["p2/org.web"]
    );
    // A public package is visible to every project, by class and by name.
    for project in ["p1", "p2", "p7"] {
        let by_class = s
            .visible_packages_with(project, Class("org.lib.Util"))
            .await;
        assert_eq!(fqns(by_class.unwrap()), vec!["p3/org.lib"]);
        let by_name = s.visible_packages_with(project, Name("org.lib")).await;
        assert_eq!(fqns(by_name.unwrap()), vec!["p3/org.lib"]);
    }
    // A name is not a class and a class is not a name.
    assert!(s
        .visible_packages_with("p1", Class("org.web"))
        .await
        .unwrap()
        .is_empty());
    assert!(s
        .visible_packages_with("p1", Name("org.web.Site"))
        .await
        .unwrap()
        .is_empty());
    assert!(s
        .visible_packages_with("p1", Class("noise1.C"))
        .await
        .unwrap()
        .is_empty());
    assert_eq!(
        fqns(
            s.visible_packages_with("p1", Class("noise2.C"))
                .await
                .unwrap()
        ),
        vec!["p9/noise2"]
    );
    assert_eq!(
        s.resolve_package("p1", "org.web.Site")
            .await
            .unwrap()
            .map(|p| p.id),
        Some(web.id.clone())
    );

    s.delete_package(&lib.id).await.unwrap();
    assert!(s
        .visible_packages_with("p1", Class("org.lib.Util"))
        .await
        .unwrap()
        .is_empty());
    // The class is free again: another project may publish it.
    s.insert_package(&pkg("p4", "org.lib2", &["org.lib.Util"], true))
        .await
        .unwrap();
    assert_eq!(
        fqns(
            s.visible_packages_with("p1", Class("org.lib.Util"))
                .await
                .unwrap()
        ),
        vec!["p4/org.lib2"]
    );
}

fn pkg(owner: &str, fqn: &str, classes: &[&str], public: bool) -> NewPackage {
    NewPackage {
        meta: Package {
            id: String::new(),
            owner_id: owner.into(),
            fully_qualified_name: fqn.into(),
            name: fqn.into(),
            kind: "Application".into(),
            version: "1.0.0".into(),
            author: "me".into(),
            supplier: json!({}),
            description: "d".into(),
            enabled: true,
            is_public: public,
            tags: vec!["web".into()],
            categories: vec![],
            class_definitions: classes.iter().map(|c| c.to_string()).collect(),
            created: String::new(),
            updated: String::new(),
        },
        archive: vec![1, 2, 3],
        logo: None,
        supplier_logo: None,
        ui_definition: Some("Version: 2".into()),
    }
}

/// Murano's catalog search: visibility, filters, words ranked by the first
/// field they match, the order keys and pages that follow it.
async fn catalog_search_ranks_filters_and_pages(s: Store) {
    use vetro_store::search::{PackageOrder, PackageQuery};
    s.add_category("SQL stores").await.unwrap();
    let add = |owner: &str, fqn: &str, edit: &dyn Fn(&mut Package)| {
        let mut p = pkg(owner, fqn, &[fqn], false);
        edit(&mut p.meta);
        let s = s.clone();
        async move { s.insert_package(&p).await.unwrap().id }
    };
    // "sql" in the name, the FQN, the description, a category, a tag, a class, the author.
    let by_name = add("p1", "z.Name", &|p| p.name = "MySQL".into()).await;
    let by_fqn = add("p1", "y.SqlServer", &|p| p.name = "b".into()).await;
    let by_desc = add("p1", "x.Desc", &|p| {
        p.name = "a".into();
        p.description = "runs a SQL database".into()
    })
    .await;
    let by_cat = add("p1", "w.Cat", &|p| p.categories = vec!["SQL stores".into()]).await;
    let by_tag = add("p1", "v.Tag", &|p| p.tags = vec!["nosql".into()]).await;
    let by_class = add("p1", "u.Class", &|p| {
        p.class_definitions = vec!["u.Class".into(), "u.PgSql".into()]
    })
    .await;
    let by_author = add("p1", "t.Author", &|p| p.author = "SQLite team".into()).await;
    let unrelated = add("p1", "s.Other", &|_| {}).await;
    let theirs = add("p2", "r.Sql", &|_| {}).await;
    let disabled = add("p1", "q.SqlOff", &|p| p.enabled = false).await;
    let query = |edit: &dyn Fn(&mut PackageQuery)| {
        let mut q = PackageQuery {
            project_id: "p1".into(),
            ..PackageQuery::default()
        };
        edit(&mut q);
        q
    };
    let ids = |q: PackageQuery, page: PageRequest| {
        let s = s.clone();
        async move {
            let p = s.search_packages(&q, &page).await.unwrap();
            (
                p.items.into_iter().map(|p| p.id).collect::<Vec<_>>(),
                p.more,
            )
        }
    };
    let sql = query(&|q| q.words = vec!["sql".into()]);
    let ranked = vec![
        by_name.clone(),
        by_fqn.clone(),
        by_desc.clone(),
        by_cat.clone(),
        by_tag.clone(),
        by_class.clone(),
        by_author.clone(),
    ];
    assert_eq!(ids(sql.clone(), all()).await, (ranked.clone(), false));
    // Pages of two follow the ranked order, across ranks.
    let mut seen = Vec::new();
    let mut page = PageRequest::first(2);
    loop {
        let p = s.search_packages(&sql, &page).await.unwrap();
        seen.extend(p.items.iter().map(|p| p.id.clone()));
        if !p.more {
            break;
        }
        page.marker = Some(p.items.last().unwrap().id.clone());
    }
    assert_eq!(seen, ranked);
    // A package outside this search is no marker of it.
    let foreign = PageRequest {
        limit: 2,
        marker: Some(unrelated.clone()),
    };
    assert!(matches!(
        s.search_packages(&sql, &foreign).await,
        Err(StoreError::Invalid(_))
    ));
    // Without words: every visible enabled package, by name then id; descending reverses.
    let by_fqn_desc = query(&|q| {
        q.order_by = vec![PackageOrder::Fqn];
        q.descending = true
    });
    let (got, _) = ids(by_fqn_desc, all()).await;
    assert_eq!(got.first(), Some(&by_name));
    assert_eq!(got.last(), Some(&unrelated));
    assert_eq!(got.len(), 8);
    assert!(!got.contains(&theirs) && !got.contains(&disabled));
    let with_disabled = query(&|q| q.include_disabled = true);
    assert_eq!(ids(with_disabled, all()).await.0.len(), 9);
    // Filters.
    let tag = query(&|q| q.tags = vec!["nosql".into(), "none".into()]);
    assert_eq!(ids(tag, all()).await.0, vec![by_tag.clone()]);
    let class = query(&|q| q.class_name = Some("u.PgSql".into()));
    assert_eq!(ids(class, all()).await.0, vec![by_class.clone()]);
    let cat = query(&|q| q.categories = vec!["SQL stores".into()]);
    assert_eq!(ids(cat, all()).await.0, vec![by_cat.clone()]);
    let id = query(&|q| q.ids = vec![by_fqn.clone(), theirs.clone()]);
    assert_eq!(ids(id, all()).await.0, vec![by_fqn.clone()]);
    let library = query(&|q| q.kind = Some("Library".into()));
    assert!(ids(library, all()).await.0.is_empty());
    // A word is matched as text, never as a pattern.
    let pattern = query(&|q| q.words = vec!["%".into(), "_".into()]);
    assert!(ids(pattern, all()).await.0.is_empty());
    // Another project sees its own and none of p1's private packages.
    let other = PackageQuery {
        project_id: "p2".into(),
        owned: true,
        ..PackageQuery::default()
    };
    assert_eq!(ids(other, all()).await.0, vec![theirs]);
}

async fn packages_conflict_and_categories(s: Store) {
    let web = s.add_category("Web").await.unwrap();
    assert!(matches!(
        s.add_category("Web").await,
        Err(StoreError::Conflict(_))
    ));
    let mut p = pkg("p1", "a.B", &["a.B"], false);
    p.meta.categories = vec!["Web".into()];
    let a = s.insert_package(&p).await.unwrap();
    assert!(matches!(
        s.insert_package(&p).await,
        Err(StoreError::Conflict(_))
    ));
    // The same class in the owner's scope conflicts; another project may have it.
    assert!(matches!(
        s.insert_package(&pkg("p1", "a.C", &["a.B"], false)).await,
        Err(StoreError::Conflict(_))
    ));
    let other = s
        .insert_package(&pkg("p2", "a.B", &["a.B"], false))
        .await
        .unwrap();
    // A public package conflicts with every project's classes.
    assert!(matches!(
        s.insert_package(&pkg("p3", "x.Y", &["a.B"], true)).await,
        Err(StoreError::Conflict(_))
    ));
    let mut bad = pkg("p1", "a.D", &["a.D"], false);
    bad.meta.categories = vec!["Nope".into()];
    assert!(matches!(
        s.insert_package(&bad).await,
        Err(StoreError::Invalid(_))
    ));
    assert!(
        s.list_packages(Some("p1"))
            .await
            .unwrap()
            .iter()
            .all(|p| p.fully_qualified_name != "a.D"),
        "nothing half-written"
    );
    let got = s.get_package(&a.id).await.unwrap();
    assert_eq!(got.categories, vec!["Web".to_string()]);
    assert_eq!(s.list_packages(Some("p1")).await.unwrap().len(), 1);
    assert_eq!(s.list_packages(None).await.unwrap().len(), 2);
    assert_eq!(
        s.package_file(&a.id, vetro_store::catalog::PackageFile::Archive)
            .await
            .unwrap(),
        Some(vec![1, 2, 3])
    );
    assert_eq!(s.get_category(&web.id).await.unwrap().package_count, 1);
    assert!(matches!(
        s.delete_category(&web.id).await,
        Err(StoreError::Forbidden(_))
    ));
    let mut changed = got.clone();
    changed.name = "Renamed".into();
    changed.categories = vec![];
    changed.is_public = true;
    // Publishing would put a.B in p2's scope, where p2 has its own a.B.
    assert!(matches!(
        s.update_package(&changed).await,
        Err(StoreError::Conflict(_))
    ));
    s.delete_package(&other.id).await.unwrap();
    assert_eq!(s.update_package(&changed).await.unwrap().name, "Renamed");
    assert_eq!(
        s.list_packages(Some("p3")).await.unwrap().len(),
        1,
        "public is visible"
    );
    assert_eq!(
        s.resolve_package("p3", "a.B").await.unwrap().map(|p| p.id),
        Some(a.id.clone())
    );
    s.insert_package(&pkg("p2", "other.Pkg", &["other.C"], false))
        .await
        .unwrap();
    assert_eq!(
        s.resolve_package("p2", "other.C")
            .await
            .unwrap()
            .map(|p| p.owner_id),
        Some("p2".into())
    );
    assert_eq!(s.resolve_package("p1", "other.C").await.unwrap(), None);
    s.delete_category(&web.id).await.unwrap();
    s.delete_package(&a.id).await.unwrap();
    assert!(matches!(
        s.get_package(&a.id).await,
        Err(StoreError::NotFound(_))
    ));
}

async fn templates_and_environment_from_template(s: Store) {
    let t = s
        .create_template("p1", "t", "", &json!({"name": "t", "services": []}), false)
        .await
        .unwrap();
    assert!(matches!(
        s.create_template("p1", "t", "", &json!({}), false).await,
        Err(StoreError::Conflict(_))
    ));
    s.create_template("p2", "pub", "", &json!({}), true)
        .await
        .unwrap();
    assert_eq!(s.list_templates(Some("p1")).await.unwrap().len(), 2);
    let mut t2 = t.clone();
    t2.model = json!({"name": "t", "services": [{"?": {"id": "s1"}}]});
    assert_eq!(s.update_template(&t2).await.unwrap().version, 1);
    let model = environments::initial_model("x", "from-t", "p1", "alice", &json!({}));
    let mut draft = model.clone();
    draft["Objects"]["services"] = t2.model["services"].clone();
    let (e, sess) = s
        .create_environment_with_session(
            "p1",
            "alice",
            "from-t",
            &model,
            &draft,
            vetro_store::new_id(),
        )
        .await
        .unwrap();
    assert_eq!(sess.environment_id, e.id);
    assert_eq!(
        s.get_session(&sess.id).await.unwrap().model["Objects"]["services"][0]["?"]["id"],
        json!("s1")
    );
    s.delete_template(&t.id).await.unwrap();
    assert!(matches!(
        s.delete_template(&t.id).await,
        Err(StoreError::NotFound(_))
    ));
}

async fn policies_set_and_clear(s: Store) {
    assert_eq!(s.policy("p1").await.unwrap(), None);
    s.set_policy("p1", Some("predeploy_errors(a,b,c) :- x(a,b,c)"))
        .await
        .unwrap();
    assert!(s
        .policy("p1")
        .await
        .unwrap()
        .unwrap()
        .starts_with("predeploy_errors"));
    assert_eq!(s.policy("p2").await.unwrap(), None);
    s.set_policy("p1", None).await.unwrap();
    assert_eq!(s.policy("p1").await.unwrap(), None);
}

async fn deleting_an_environment_removes_its_rows(s: Store) {
    let e = env(&s, "gone").await;
    let a = s.open_session(&e.id, "alice").await.unwrap();
    let t = s.deploy_session(&a.id, "p1", None).await.unwrap();
    s.delete_environment(&e.id).await.unwrap();
    assert!(matches!(s.get_task(&t).await, Err(StoreError::NotFound(_))));
    assert!(s.reports(&t).await.unwrap().is_empty());
    assert!(matches!(
        s.get_session(&a.id).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        s.delete_environment(&e.id).await,
        Err(StoreError::NotFound(_))
    ));
}

async fn pinned_packages_keep_the_first_pin(s: Store) {
    use vetro_store::queue::PinnedPackage;
    let e = env(&s, "pins").await;
    let a = s.open_session(&e.id, "alice").await.unwrap();
    let t = s.deploy_session(&a.id, "p1", None).await.unwrap();
    let pin = |v: &str| PinnedPackage {
        fully_qualified_name: "a.B".into(),
        package_id: format!("id-{v}"),
        version: v.into(),
    };
    s.pin_packages(&t, &[pin("1.0.0")]).await.unwrap();
    s.pin_packages(&t, &[pin("2.0.0")]).await.unwrap();
    assert_eq!(s.pinned_packages(&t).await.unwrap(), vec![pin("1.0.0")]);
}

async fn claims_leases_and_results(s: Store) {
    let e = env(&s, "w").await;
    let sess = s.open_session(&e.id, "alice").await.unwrap();
    let id = s.deploy_session(&sess.id, "p1", None).await.unwrap();
    let lease = std::time::Duration::from_secs(30);
    let t = s.claim_task("w1", lease).await.unwrap().expect("a task");
    assert_eq!(
        (t.id.as_str(), t.state.as_str(), t.attempts),
        (id.as_str(), "running", 1)
    );
    assert!(s.claim_task("w2", lease).await.unwrap().is_none());
    assert_eq!(
        s.renew_lease(&id, "w1", lease).await.unwrap(),
        LeaseState::Held { cancel: false }
    );
    assert_eq!(
        s.renew_lease(&id, "w2", lease).await.unwrap(),
        LeaseState::Lost
    );
    assert!(s.request_cancel(&id).await.unwrap());
    assert_eq!(
        s.renew_lease(&id, "w1", lease).await.unwrap(),
        LeaseState::Held { cancel: true }
    );
    let report = NewReport {
        entity_id: e.id.clone(),
        entity: "environment".into(),
        text: "working".into(),
        level: "info".into(),
        details: None,
    };
    assert!(s.report_as(&id, "w1", &report).await.unwrap());
    assert!(!s.report_as(&id, "w2", &report).await.unwrap());
    let model = json!({"Objects": {"?": {"id": e.id}, "name": "new"}});
    let done = Completion {
        finish: Finish::Succeeded,
        result: json!({"result": 1, "isException": false}),
        is_exception: false,
        model: Some(model.clone()),
        cloud_state: Some(json!({"version": 1})),
    };
    assert!(
        !s.complete_task(&t, "w2", &done).await.unwrap(),
        "not the owner"
    );
    assert!(s.complete_task(&t, "w1", &done).await.unwrap());
    assert!(
        !s.complete_task(&t, "w1", &done).await.unwrap(),
        "only once"
    );
    let t = s.get_task(&id).await.unwrap();
    assert_eq!(t.state, "succeeded");
    assert!(t.lease_owner.is_none() && t.attempted_model.is_none());
    let env = s.get_environment(&e.id).await.unwrap();
    assert_eq!((&env.model, env.version), (&model, e.version + 1));
    assert_eq!(
        s.cloud_state(&e.id).await.unwrap(),
        Some(json!({"version": 1}))
    );
    assert_eq!(s.get_session(&sess.id).await.unwrap().state, "deployed");
    // A failed run keeps the environment's model and stores the attempt.
    let sess = s.open_session(&e.id, "alice").await.unwrap();
    let id = s.deploy_session(&sess.id, "p1", None).await.unwrap();
    let t = s.claim_task("w1", lease).await.unwrap().unwrap();
    let failed = Completion {
        finish: Finish::Failed,
        model: Some(json!({"Objects": null})),
        ..done
    };
    assert!(s.complete_task(&t, "w1", &failed).await.unwrap());
    let env2 = s.get_environment(&e.id).await.unwrap();
    assert_eq!(env2.version, env.version);
    assert_eq!(env2.model, env.model);
    let t = s.get_task(&id).await.unwrap();
    assert_eq!(t.state, "failed");
    assert_eq!(t.attempted_model, Some(json!({"Objects": null})));
    assert_eq!(
        s.get_session(&sess.id).await.unwrap().state,
        "deploy failure"
    );
}

async fn expired_leases_are_requeued_then_failed(s: Store) {
    let e = env(&s, "r").await;
    let sess = s.open_session(&e.id, "alice").await.unwrap();
    let id = s.deploy_session(&sess.id, "p1", None).await.unwrap();
    let short = std::time::Duration::from_millis(1);
    s.claim_task("gone1", short).await.unwrap().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    assert_eq!(
        s.reap_expired(2).await.unwrap(),
        vec![Reaped::Requeued(id.clone())]
    );
    assert_eq!(s.get_task(&id).await.unwrap().state, "queued");
    assert!(
        !s.release_task(&id, "gone1").await.unwrap(),
        "the old owner is out"
    );
    s.claim_task("gone2", short).await.unwrap().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    assert_eq!(
        s.reap_expired(2).await.unwrap(),
        vec![Reaped::Failed(id.clone())]
    );
    let t = s.get_task(&id).await.unwrap();
    assert_eq!(
        (t.state.as_str(), t.attempts, t.is_exception),
        ("failed", 2, true)
    );
    assert_eq!(
        s.get_session(&sess.id).await.unwrap().state,
        "deploy failure"
    );
    let texts: Vec<String> = s
        .reports(&id)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.text)
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("takes it over")),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.contains("no attempts left")),
        "{texts:?}"
    );
    assert!(s.reap_expired(2).await.unwrap().is_empty());
}

/// A database that cannot be used fails at once, not after the pool's
/// acquire timeout of retried connections (found by `scripts/probes.py`:
/// `vetro db migrate` on such a URL took 30 s to fail).
#[tokio::test]
async fn an_unusable_database_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("not-a-database");
    std::fs::write(&path, vec![0x5a; 64 * 1024]).unwrap();
    for url in [
        format!("sqlite://{}", path.display()),
        // Nothing listens on the discard port: the connection is refused.
        "postgres://nobody@127.0.0.1:9/x".to_string(),
    ] {
        let start = std::time::Instant::now();
        assert!(Store::connect(&url).await.is_err(), "{url}");
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{url}"
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), vec![0x5a; 64 * 1024]);
}

/// A run that succeeded with an empty model and no result.
fn empty_success() -> Completion {
    Completion {
        finish: Finish::Succeeded,
        result: json!({"result": null, "isException": false}),
        is_exception: false,
        model: Some(json!({"Objects": null})),
        cloud_state: None,
    }
}
