//! What the dashboard's router tests share: a service on an in-memory
//! database with a signed-in person, and requests sent to it without a
//! network.
#![allow(dead_code)] // each test file uses its own part

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use std::sync::Arc;
use tower::ServiceExt;
use vetro_server::{AppState, Limits};
use vetro_store::catalog::{NewPackage, Package};
use vetro_store::tokens::Principal;
use vetro_store::Store;

pub struct App {
    pub router: Router,
    pub store: Store,
    pub token: String,
}

/// The service and dashboard on `store` (a fresh process's view of it).
pub fn router(store: &Store) -> Router {
    let st = AppState {
        store: store.clone(),
        limits: Arc::new(Limits::default()),
        default_policy: None,
        keystone: None,
        pages: Default::default(),
    };
    vetro_server::router_with(st.clone(), vetro_dashboard::router(st))
}

/// A SQLite file in the temporary folder, removed (with its WAL files) when dropped.
pub struct TempDb {
    path: std::path::PathBuf,
    pub url: String,
}

impl TempDb {
    pub fn new(tag: &str) -> TempDb {
        let path = std::env::temp_dir().join(format!("vetro-dash-{tag}-{}.db", std::process::id()));
        let url = format!("sqlite://{}", path.display());
        TempDb { path, url }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", self.path.display()));
        }
    }
}

/// A fresh database on the PostgreSQL server `VETRO_TEST_PG_URL` names.
pub async fn fresh_postgres() -> Option<String> {
    let base = std::env::var("VETRO_TEST_PG_URL").ok()?;
    let admin = Store::connect(&base).await.expect("VETRO_TEST_PG_URL");
    let name = format!("vetro_dash_{}", vetro_store::new_id());
    vetro_store::sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(admin.pool())
        .await
        .expect("create a test database");
    admin.close().await;
    let (prefix, _) = base.rsplit_once('/').expect("a URL with a database name");
    Some(format!("{prefix}/{name}"))
}

pub async fn app() -> App {
    app_on("sqlite::memory:").await
}

/// The service on the database at `url`, with a token for an admin of `demo`.
pub async fn app_on(url: &str) -> App {
    let store = Store::connect(url).await.unwrap();
    store.migrate().await.unwrap();
    let router = router(&store);
    let token = store
        .create_token(&Principal {
            project_id: "demo".into(),
            user_id: "alice".into(),
            is_admin: true,
        })
        .await
        .unwrap();
    App {
        router,
        store,
        token,
    }
}

pub struct Answer {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl App {
    pub async fn send(&self, req: Request<Body>) -> Answer {
        let r = self.router.clone().oneshot(req).await.unwrap();
        let status = r.status();
        let headers = r.headers().clone();
        let bytes = axum::body::to_bytes(r.into_body(), 64 << 20).await.unwrap();
        Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    pub async fn get(&self, path: &str, cookie: &str) -> Answer {
        let req = Request::get(path)
            .header(header::COOKIE, cookie)
            .body(Body::empty())
            .unwrap();
        self.send(req).await
    }

    pub async fn post(&self, path: &str, cookie: &str, form: &[(&str, &str)]) -> Answer {
        let body: Vec<String> = form
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect();
        let req = Request::post(path)
            .header(header::COOKIE, cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body.join("&")))
            .unwrap();
        self.send(req).await
    }

    /// Signs in with the token: the session cookie and the page's CSRF token.
    pub async fn sign_in(&self) -> (String, String) {
        let form = self.get("/signin", "").await;
        let nonce_cookie = set_cookie(&form, "vetro_signin");
        let nonce = hidden(&form.body, "_signin");
        let r = self
            .post(
                "/signin",
                &nonce_cookie,
                &[("_signin", &nonce), ("token", &self.token)],
            )
            .await;
        assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
        let cookie = set_cookie(&r, "vetro_session");
        let page = self.get("/environments", &cookie).await;
        assert_eq!(page.status, StatusCode::OK);
        let csrf = hidden(&page.body, "_csrf");
        (cookie, csrf)
    }
}

pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub fn set_cookie(a: &Answer, name: &str) -> String {
    a.headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .and_then(|v| v.split(';').next())
        .unwrap_or_else(|| panic!("no {name} cookie"))
        .to_string()
}

pub fn hidden(body: &str, name: &str) -> String {
    let key = format!("name=\"{name}\" value=\"");
    let start = body.find(&key).unwrap_or_else(|| panic!("no {name} field")) + key.len();
    body[start..].split('"').next().unwrap().to_string()
}

pub fn package(i: usize, name: &str, description: &str) -> NewPackage {
    NewPackage {
        meta: Package {
            id: String::new(),
            owner_id: "demo".into(),
            fully_qualified_name: format!("com.example.app{i}"),
            name: name.into(),
            kind: "Application".into(),
            version: "1.0.0".into(),
            author: "someone".into(),
            supplier: serde_json::json!({}),
            description: description.into(),
            enabled: true,
            is_public: false,
            tags: vec![format!("<b>tag{i}</b>")],
            categories: Vec::new(),
            class_definitions: vec![format!("com.example.App{i}")],
            created: String::new(),
            updated: String::new(),
        },
        archive: b"PK".to_vec(),
        logo: None,
        supplier_logo: None,
        ui_definition: None,
    }
}
