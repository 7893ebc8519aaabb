//! The dashboard through its router (no network): sign-in and sessions,
//! CSRF, security headers, hostile metadata escaped everywhere, pages with
//! 1,000 packages and 200 environments, and the live log's latency.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use futures_util::StreamExt;
use std::time::{Duration, Instant};
use tower::ServiceExt;

mod support;
use support::*;
use vetro_store::queue::NewReport;

#[tokio::test]
async fn pages_need_a_session_and_sign_in_sets_a_strict_cookie() {
    let a = app().await;
    let r = a.get("/environments", "").await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(r.headers[header::LOCATION], "/signin");
    let form = a.get("/signin", "").await;
    let csp = form.headers[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(
        csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"),
        "{csp}"
    );
    // A wrong token is refused on the page, without a session.
    let nonce_cookie = set_cookie(&form, "vetro_signin");
    let nonce = hidden(&form.body, "_signin");
    let r = a
        .post(
            "/signin",
            &nonce_cookie,
            &[("_signin", &nonce), ("token", "wrong")],
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert!(r.body.contains("not valid"));
    // A sign-in post without the form's nonce (another site's form) is refused.
    let r = a
        .post("/signin", "", &[("_signin", &nonce), ("token", &a.token)])
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    let r = a
        .post(
            "/signin",
            &nonce_cookie,
            &[("_signin", &nonce), ("token", &a.token)],
        )
        .await;
    let cookie = r
        .headers
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("vetro_session="))
        .unwrap();
    for attr in ["HttpOnly", "SameSite=Strict", "Max-Age=28800", "Path=/"] {
        assert!(cookie.contains(attr), "{cookie}");
    }
    assert!(!r.headers[header::LOCATION]
        .to_str()
        .unwrap()
        .contains(&a.token));
    // Sign out ends the session.
    let (cookie, csrf) = a.sign_in().await;
    let r = a.post("/signout", &cookie, &[("_csrf", &csrf)]).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    let r = a.get("/environments", &cookie).await;
    assert_eq!(r.headers[header::LOCATION], "/signin");
}

/// Sessions live in the database: a new process on the same database knows
/// them, with their half-filled forms; revoking the token ends them.
#[tokio::test]
async fn a_sign_in_survives_a_restart_and_ends_with_its_token() {
    let db = TempDb::new("restart");
    let a = app_on(&db.url).await;
    let (cookie, csrf) = a.sign_in().await;
    let r = a
        .post(
            "/environments",
            &cookie,
            &[("name", "kept"), ("_csrf", &csrf)],
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    a.store.close().await;
    drop(a);
    // "Restart": a new store and router on the same file.
    let store = vetro_store::Store::connect(&db.url).await.unwrap();
    let b = App {
        router: router(&store),
        store,
        token: String::new(),
    };
    let r = b.get("/environments", &cookie).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body.contains("kept"));
    assert_eq!(hidden(&r.body, "_csrf"), csrf, "the same CSRF token");
    // A made-up cookie is no session.
    let r = b.get("/environments", "vetro_session=00ff").await;
    assert_eq!(r.headers[header::LOCATION], "/signin");
    let token = b.store.list_tokens(None).await.unwrap()[0].id.clone();
    b.store.revoke_token(&token).await.unwrap();
    let r = b.get("/environments", &cookie).await;
    assert_eq!(r.headers[header::LOCATION], "/signin");
    b.store.close().await;
}

#[tokio::test]
async fn every_form_needs_the_csrf_token() {
    let a = app().await;
    let (cookie, csrf) = a.sign_in().await;
    for path in [
        "/environments",
        "/policy",
        "/templates",
        "/categories",
        "/signout",
    ] {
        let r = a.post(path, &cookie, &[("name", "x")]).await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}");
        let r = a
            .post(path, &cookie, &[("name", "x"), ("_csrf", "forged")])
            .await;
        assert_eq!(r.status, StatusCode::FORBIDDEN, "{path}");
    }
    assert!(a.store.list_environments(None).await.unwrap().is_empty());
    let r = a
        .post(
            "/environments",
            &cookie,
            &[("name", "prod"), ("_csrf", &csrf)],
        )
        .await;
    assert_eq!(r.status, StatusCode::SEE_OTHER);
    assert_eq!(a.store.list_environments(None).await.unwrap().len(), 1);
}

#[tokio::test]
async fn hostile_metadata_is_escaped_on_every_page() {
    let a = app().await;
    let evil = "<img src=x onerror=alert(1)>";
    let p = a
        .store
        .insert_package(&package(1, evil, "<script>alert(2)</script> & more"))
        .await
        .unwrap();
    let (cookie, csrf) = a.sign_in().await;
    let r = a
        .post(
            "/environments",
            &cookie,
            &[("name", "<svg onload=alert(3)>"), ("_csrf", &csrf)],
        )
        .await;
    let env_page = r.headers[header::LOCATION].to_str().unwrap().to_string();
    let pages = [
        "/catalog".to_string(),
        format!("/catalog/{}", p.id),
        format!("/catalog?q={}", enc(evil)),
        "/environments".into(),
        env_page.clone(),
        format!("{env_page}/add"),
        "/templates".into(),
    ];
    for path in &pages {
        let r = a.get(path, &cookie).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
        for raw in ["<img src=x", "<script>alert", "<svg onload", "<b>tag"] {
            assert!(!r.body.contains(raw), "{path} shows {raw} unescaped");
        }
        assert!(r.headers.contains_key(header::CONTENT_SECURITY_POLICY));
        assert_eq!(r.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    }
    let r = a.get(&format!("/catalog/{}", p.id), &cookie).await;
    assert!(r.body.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(r
        .body
        .contains("&lt;script&gt;alert(2)&lt;/script&gt; &amp; more"));
    // No inline script anywhere: the only script is the embedded file.
    assert_eq!(r.body.matches("<script").count(), 1);
    assert!(r.body.contains("<script src=\"/static/app.js"));
}

#[tokio::test]
async fn the_script_is_small_and_served_from_the_binary() {
    let a = app().await;
    let r = a.get("/static/app.js", "").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.body.len() < 100 * 1024,
        "the only script is {} bytes",
        r.body.len()
    );
    assert!(r.headers[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .starts_with("text/javascript"));
    assert!(
        !r.body.contains("innerHTML"),
        "server text is inserted as text only"
    );
    let r = a.get("/static/app.css", "").await;
    assert_eq!(r.status, StatusCode::OK);
}

/// Every page with 1,000 packages and 200 environments. The bound here is
/// loose (debug builds on shared machines); the figures are printed.
#[tokio::test]
async fn pages_stay_fast_with_1000_packages_and_200_environments() {
    let a = app().await;
    for i in 0..1000 {
        a.store
            .insert_package(&package(
                i,
                &format!("App {i}"),
                "A package for the load test.",
            ))
            .await
            .unwrap();
    }
    let (cookie, csrf) = a.sign_in().await;
    let mut env = String::new();
    for i in 0..200 {
        let name = format!("env-{i}");
        let r = a
            .post(
                "/environments",
                &cookie,
                &[("name", &name), ("_csrf", &csrf)],
            )
            .await;
        env = r.headers[header::LOCATION].to_str().unwrap().to_string();
    }
    let pkg = a.store.list_packages(None).await.unwrap()[500].id.clone();
    let pages = [
        "/catalog".to_string(),
        "/catalog?q=App%2099".into(),
        format!("/catalog/{pkg}"),
        "/environments".into(),
        env.clone(),
        format!("{env}/add"),
        "/templates".into(),
        "/policy".into(),
        "/categories".into(),
    ];
    for path in &pages {
        let _ = a.get(path, &cookie).await;
        let t = Instant::now();
        let r = a.get(path, &cookie).await;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        println!("{path}: {ms:.1} ms, {} bytes", r.body.len());
        assert_eq!(r.status, StatusCode::OK, "{path}");
        assert!(ms < 1000.0, "{path} took {ms:.1} ms");
    }
    let r = a.get("/environments", &cookie).await;
    assert_eq!(r.body.matches("href=\"/environments/").count(), 200);
    let r = a.get("/catalog", &cookie).await;
    assert!(
        r.body.contains("rel=\"next\""),
        "the catalog pages its cards"
    );
}

/// Reports written through `writer` reach the live stream `a` serves
/// within 100 ms; the times are printed.
async fn live_latency(a: &App, writer: &vetro_store::Store, what: &str) {
    let (cookie, _) = a.sign_in().await;
    let env = a
        .store
        .create_environment("demo", "live", &serde_json::json!({"Objects": null}), None)
        .await
        .unwrap();
    let s = a.store.open_session(&env.id, "alice").await.unwrap();
    let task = a.store.deploy_session(&s.id, "demo", None).await.unwrap();
    let req = Request::get(format!(
        "/environments/{}/deployments/{task}/events",
        env.id
    ))
    .header(header::COOKIE, &cookie)
    .body(Body::empty())
    .unwrap();
    let r = a.router.clone().oneshot(req).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // The stream is read as it comes, so it waits for the reports below
    // (rather than finding them already written when next asked).
    let mut body = r.into_body().into_data_stream();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(Ok(chunk)) = body.next().await {
            let text = String::from_utf8_lossy(&chunk).into_owned();
            if tx.send((Instant::now(), text)).is_err() {
                break;
            }
        }
    });
    async fn next(
        rx: &mut tokio::sync::mpsc::UnboundedReceiver<(Instant, String)>,
    ) -> (Instant, String) {
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("a chunk within 5 s")
            .expect("the stream goes on")
    }
    // The queued task's first report comes at once.
    assert!(next(&mut rx).await.1.contains("event: report"));
    let mut worst = 0.0f64;
    for i in 0..5 {
        // Uneven pauses, so the writes fall at different points of any polling.
        tokio::time::sleep(Duration::from_millis(37 + 13 * i)).await;
        let t = Instant::now();
        writer
            .report(
                &task,
                &NewReport {
                    entity_id: env.id.clone(),
                    entity: "environment".into(),
                    text: format!("step {i}"),
                    level: "info".into(),
                    details: None,
                },
            )
            .await
            .unwrap();
        let (at, text) = next(&mut rx).await;
        assert!(text.contains(&format!("step {i}")), "{text}");
        worst = worst.max((at - t).as_secs_f64() * 1000.0);
    }
    println!("{what}: the slowest of 5 reports reached the stream in {worst:.1} ms");
    assert!(worst < 100.0, "{what}: a report took {worst:.1} ms");
}

#[tokio::test]
async fn a_report_reaches_the_live_log_within_100_ms() {
    let a = app().await;
    let writer = a.store.clone();
    live_latency(&a, &writer, "same process").await;
}

/// A worker in another process writes through its own connections: the
/// live log learns of it from the database (SQLite's change counter).
#[tokio::test]
async fn a_report_from_another_process_reaches_the_live_log_within_100_ms() {
    let db = TempDb::new("live");
    let a = app_on(&db.url).await;
    let other = vetro_store::Store::connect(&db.url).await.unwrap();
    live_latency(&a, &other, "another process, SQLite").await;
    other.close().await;
    a.store.close().await;
}

/// The same on PostgreSQL (LISTEN/NOTIFY), when `VETRO_TEST_PG_URL` names a
/// server where a database may be created.
#[tokio::test]
async fn a_report_from_another_process_reaches_the_live_log_on_postgres() {
    let Some(url) = fresh_postgres().await else {
        eprintln!("VETRO_TEST_PG_URL is not set: skipping the PostgreSQL live log test");
        return;
    };
    let a = app_on(&url).await;
    let other = vetro_store::Store::connect(&url).await.unwrap();
    live_latency(&a, &other, "another process, PostgreSQL").await;
    other.close().await;
    a.store.close().await;
}
