//! The API over real loopback HTTP: auth, environments, sessions, services,
//! deploy queueing, packages (good, broken, hostile archives), templates,
//! error shapes, and project isolation on every route.

use reqwest::blocking::{multipart, Client, RequestBuilder, Response};
use serde_json::{json, Value};
use std::io::Write;
use std::sync::Arc;
use vetro_server::{AppState, Limits};
use vetro_store::tokens::Principal;
use vetro_store::Store;

struct Server {
    url: String,
    store: Store,
    rt: tokio::runtime::Runtime,
}

fn start() -> Server {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (url, store) = rt.block_on(async {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        store.migrate().await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let st = AppState {
            store: store.clone(),
            limits: Arc::new(Limits {
                package_unpacked: 64 * 1024,
                ..Limits::default()
            }),
            default_policy: None,
        };
        tokio::spawn(vetro_server::serve(st, listener, std::future::pending()));
        (format!("http://{addr}"), store)
    });
    Server { url, store, rt }
}

impl Server {
    fn token(&self, project: &str, user: &str, admin: bool) -> String {
        let p = Principal {
            project_id: project.into(),
            user_id: user.into(),
            is_admin: admin,
        };
        self.rt.block_on(self.store.create_token(&p)).unwrap()
    }
}

/// A client that asks for JSON, so errors come as Murano's JSON body.
fn json_client() -> Client {
    let mut h = reqwest::header::HeaderMap::new();
    h.insert(
        reqwest::header::ACCEPT,
        reqwest::header::HeaderValue::from_static("application/json"),
    );
    Client::builder().default_headers(h).build().unwrap()
}

struct As<'a> {
    s: &'a Server,
    token: String,
    client: Client,
}

impl<'a> As<'a> {
    fn new(s: &'a Server, project: &str, user: &str, admin: bool) -> As<'a> {
        As {
            s,
            token: s.token(project, user, admin),
            client: json_client(),
        }
    }
    fn req(&self, method: &str, path: &str) -> RequestBuilder {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        self.client
            .request(m, format!("{}{path}", self.s.url))
            .header("X-Auth-Token", &self.token)
    }
    fn json(&self, method: &str, path: &str, body: Value) -> Response {
        self.req(method, path).json(&body).send().unwrap()
    }
    fn get(&self, path: &str) -> Response {
        self.req("GET", path).send().unwrap()
    }
}

fn ok(r: Response) -> Value {
    let status = r.status();
    let text = r.text().unwrap();
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn err(r: Response, code: u16) -> Value {
    let status = r.status();
    let body: Value = r.json().unwrap();
    assert_eq!(status.as_u16(), code, "{body}");
    assert_eq!(body["code"], json!(code));
    assert!(
        body["error"]["message"].is_string() && body["title"].is_string(),
        "{body}"
    );
    body
}

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut out);
        for (name, data) in files {
            z.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            z.write_all(data).unwrap();
        }
        z.finish().unwrap();
    }
    out.into_inner()
}

const MANIFEST: &str = "Format: MuranoPL/1.4\nType: Application\nFullName: t.App\nName: Test app\n\
Author: me\nTags: [web]\nClasses:\n  t.App: App.yaml\n";
const CLASS: &str = "Namespaces:\n  =: t\n  std: io.murano\nName: App\nExtends: std:Application\n\
Methods:\n  deploy:\n    Body:\n      - Return: 1\n";

fn upload(a: &As, archive: Vec<u8>, meta: Option<Value>) -> Response {
    let mut form =
        multipart::Form::new().part("t.App", multipart::Part::bytes(archive).file_name("t.zip"));
    if let Some(m) = meta {
        form = form.text("__metadata__", m.to_string());
    }
    a.req("POST", "/v1/catalog/packages")
        .multipart(form)
        .send()
        .unwrap()
}

#[test]
fn auth_is_required_and_errors_have_murano_shape() {
    let s = start();
    let r = json_client()
        .get(format!("{}/v1/environments", s.url))
        .send()
        .unwrap();
    err(r, 401);
    let r = json_client()
        .get(format!("{}/v1/environments", s.url))
        .header("X-Auth-Token", "not-a-token")
        .send()
        .unwrap();
    err(r, 401);
    let a = As::new(&s, "p1", "u1", false);
    let r = a
        .req("POST", "/v1/environments")
        .header("Content-Type", "application/json")
        .body("{bad")
        .send()
        .unwrap();
    assert!(err(r, 400)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("line 1"));
    let r = a
        .req("POST", "/v1/environments")
        .header("Content-Type", "text/plain")
        .body("x")
        .send()
        .unwrap();
    err(r, 415);
    // Just over the 1 MiB limit: small enough for the loopback socket buffers to
    // take it whole, so the client reads the 413 instead of a reset connection.
    let big = json!({"name": "x".repeat(1024 * 1024 + 1024)});
    err(a.json("POST", "/v1/environments", big), 413);
    err(a.json("POST", "/v1/environments", json!({"name": ""})), 400);
    err(a.get("/v1/environments/nope"), 404);
    err(a.get("/v1/nothing-here"), 404);
    assert!(a
        .get("/v1/environments")
        .headers()
        .contains_key("x-request-id"));
    let doc: Value = ok(json_client()
        .get(format!("{}/openapi.json", s.url))
        .send()
        .unwrap());
    assert!(doc["paths"]["/v1/environments/{environment_id}/actions/{action_id}"].is_object());
    assert_eq!(
        ok(json_client()
            .get(format!("{}/readyz", s.url))
            .send()
            .unwrap())["status"],
        "ready"
    );
}

/// python-muranoclient sends `Accept: */*` and understands only WebOb's HTML
/// error pages: with JSON it crashes and cannot tell a 404 (so finding an
/// environment by name fails).
#[test]
fn errors_are_html_unless_json_is_asked_for() {
    let s = start();
    let token = s.token("p1", "u1", false);
    for accept in [Some("*/*"), None, Some("text/html")] {
        let mut r = Client::new()
            .get(format!("{}/v1/environments/no-such-env", s.url))
            .header("X-Auth-Token", &token);
        if let Some(a) = accept {
            r = r.header("Accept", a);
        }
        let r = r.send().unwrap();
        assert_eq!(r.status(), 404);
        let ct = r.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with("text/html"), "{accept:?}: {ct}");
        let page = r.text().unwrap();
        assert!(page.contains("<title>404 Not Found</title>"), "{page}");
        assert!(page.contains("environment no-such-env not found"), "{page}");
    }
    let r = json_client()
        .get(format!("{}/v1/environments/no-such-env", s.url))
        .header("X-Auth-Token", &token)
        .send()
        .unwrap();
    err(r, 404);
    // Successful answers are JSON whatever the client accepts.
    let r = Client::new()
        .get(format!("{}/v1/environments", s.url))
        .header("X-Auth-Token", &token)
        .header("Accept", "*/*")
        .send()
        .unwrap();
    assert_eq!(ok(r)["environments"], json!([]));
}

#[test]
fn environment_session_services_and_deploy() {
    let s = start();
    let a = As::new(&s, "p1", "u1", false);
    let env = ok(a.json("POST", "/v1/environments", json!({"name": "e1"})));
    let id = env["id"].as_str().unwrap().to_string();
    assert_eq!(env["status"], "ready");
    err(
        a.json("POST", "/v1/environments", json!({"name": "e1"})),
        409,
    );
    let list = ok(a.get("/v1/environments"));
    assert_eq!(
        list["environments"],
        json!([env]),
        "a list item is shaped as the created one"
    );
    let sess = ok(a
        .req("POST", &format!("/v1/environments/{id}/configure"))
        .send()
        .unwrap());
    let sid = sess["id"].as_str().unwrap().to_string();
    assert_eq!(sess["state"], "opened");
    assert_eq!(
        ok(a.get("/v1/environments"))["environments"][0]["status"],
        "pending"
    );
    // Writes need the session header.
    err(
        a.json(
            "POST",
            &format!("/v1/environments/{id}/services"),
            json!({"?": {"id": "s1", "type": "t.App"}}),
        ),
        400,
    );
    let app = json!({"?": {"id": "s1", "type": "t.App"}, "name": "web"});
    let r = a
        .req("POST", &format!("/v1/environments/{id}/services"))
        .header("X-Configuration-Session", &sid)
        .json(&app)
        .send()
        .unwrap();
    ok(r);
    let r = a
        .req("PUT", &format!("/v1/environments/{id}/services/s1/name"))
        .header("X-Configuration-Session", &sid)
        .json(&json!("www"))
        .send()
        .unwrap();
    ok(r);
    let draft = ok(a
        .req("GET", &format!("/v1/environments/{id}/services"))
        .header("X-Configuration-Session", &sid)
        .send()
        .unwrap());
    assert_eq!(draft[0]["name"], "www");
    assert_eq!(
        ok(a.get(&format!("/v1/environments/{id}/services"))),
        json!([]),
        "the environment is untouched"
    );
    let shown = ok(a
        .req("GET", &format!("/v1/environments/{id}"))
        .header("X-Configuration-Session", &sid)
        .send()
        .unwrap());
    assert_eq!(shown["services"][0]["?"]["id"], "s1");
    // Model patches: allowed and forbidden paths.
    let r = a
        .req("PATCH", &format!("/v1/environments/{id}/model/"))
        .header("X-Configuration-Session", &sid)
        .header("Content-Type", "application/env-model-json-patch")
        .body(json!([{"op": "replace", "path": "/name", "value": "renamed"}]).to_string())
        .send()
        .unwrap();
    assert_eq!(ok(r)["name"], "renamed");
    let r = a
        .req("PATCH", &format!("/v1/environments/{id}/model/"))
        .header("X-Configuration-Session", &sid)
        .header("Content-Type", "application/env-model-json-patch")
        .body(json!([{"op": "replace", "path": "/?/id", "value": "x"}]).to_string())
        .send()
        .unwrap();
    err(r, 403);
    let model = ok(a
        .req("GET", &format!("/v1/environments/{id}/model/services/s1"))
        .header("X-Configuration-Session", &sid)
        .send()
        .unwrap());
    assert_eq!(model["name"], "www");
    // Another user cannot see the session.
    let b = As::new(&s, "p1", "u2", false);
    err(b.get(&format!("/v1/environments/{id}/sessions/{sid}")), 401);
    // Deploy: the session and the environment go deploying, a task is queued.
    ok(a.req(
        "POST",
        &format!("/v1/environments/{id}/sessions/{sid}/deploy"),
    )
    .send()
    .unwrap());
    let env = ok(a.get(&format!("/v1/environments/{id}")));
    assert_eq!(env["status"], "deploying");
    assert_eq!(env["acquired_by"], json!(sid));
    let deps = ok(a.get(&format!("/v1/environments/{id}/deployments")));
    let dep = &deps["deployments"][0];
    assert_eq!(dep["state"], "running");
    assert_eq!(dep["description"]["services"][0]["name"], "www");
    let dep_id = dep["id"].as_str().unwrap();
    let reports = ok(a.get(&format!("/v1/environments/{id}/deployments/{dep_id}")));
    assert_eq!(reports["reports"][0]["text"], "Action deploy is scheduled");
    assert_eq!(
        ok(a.get("/v1/deployments"))["deployments"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // A second deploy or a configure while deploying is refused.
    err(
        a.req(
            "POST",
            &format!("/v1/environments/{id}/sessions/{sid}/deploy"),
        )
        .send()
        .unwrap(),
        403,
    );
    err(
        a.req("POST", &format!("/v1/environments/{id}/configure"))
            .send()
            .unwrap(),
        403,
    );
    err(
        a.req("DELETE", &format!("/v1/environments/{id}"))
            .send()
            .unwrap(),
        403,
    );
    let c = ok(a
        .req(
            "POST",
            &format!("/v1/environments/{id}/deployments/{dep_id}/cancel"),
        )
        .send()
        .unwrap());
    assert_eq!(c["cancel_requested"], true);
    ok(
        a.req("DELETE", &format!("/v1/environments/{id}?abandon=true"))
            .send()
            .unwrap(),
    );
    err(a.get(&format!("/v1/environments/{id}")), 404);
}

#[test]
fn packages_upload_search_patch_and_hostile_archives() {
    let s = start();
    let admin = As::new(&s, "p1", "root", true);
    let a = As::new(&s, "p1", "u1", false);
    ok(admin.json("POST", "/v1/catalog/categories", json!({"name": "Web"})));
    err(
        a.json("POST", "/v1/catalog/categories", json!({"name": "Other"})),
        403,
    );
    let good = zip(&[
        ("manifest.yaml", MANIFEST.as_bytes()),
        ("Classes/App.yaml", CLASS.as_bytes()),
        ("UI/ui.yaml", b"Version: 2\n"),
    ]);
    err(
        upload(&a, good.clone(), Some(json!({"is_public": true}))),
        403,
    );
    let p = ok(upload(
        &a,
        good.clone(),
        Some(json!({"categories": ["Web"]})),
    ));
    assert_eq!(p["fully_qualified_name"], "t.App");
    assert_eq!(p["class_definitions"], json!(["t.App"]));
    assert_eq!(p["tags"], json!(["web"]));
    let pid = p["id"].as_str().unwrap().to_string();
    err(upload(&a, good.clone(), None), 409);
    let found = ok(a.get("/v1/catalog/packages?search=test&category=Web&type=application"));
    assert_eq!(found["packages"].as_array().unwrap().len(), 1);
    assert_eq!(
        ok(a.get("/v1/catalog/packages?class_name=t.Nope"))["packages"],
        json!([])
    );
    let dl = a
        .get(&format!("/v1/catalog/packages/{pid}/download"))
        .bytes()
        .unwrap();
    assert_eq!(dl.to_vec(), good);
    assert!(a
        .get(&format!("/v1/catalog/packages/{pid}/ui"))
        .text()
        .unwrap()
        .contains("Version"));
    err(a.get(&format!("/v1/catalog/packages/{pid}/logo")), 404);
    let patch = |ops: Value| {
        a.req("PATCH", &format!("/v1/catalog/packages/{pid}"))
            .header("Content-Type", "application/murano-packages-json-patch")
            .body(ops.to_string())
            .send()
            .unwrap()
    };
    assert_eq!(
        ok(patch(
            json!([{"op": "add", "path": "/tags", "value": ["x"]}])
        ))["tags"],
        json!(["web", "x"])
    );
    err(
        patch(json!([{"op": "replace", "path": "/fully_qualified_name", "value": "z"}])),
        403,
    );
    err(
        patch(json!([{"op": "replace", "path": "/is_public", "value": true}])),
        403,
    );
    // Broken and hostile archives: clear 4xx, nothing stored.
    err(upload(&a, b"not a zip".to_vec(), None), 400);
    let escape = zip(&[
        ("manifest.yaml", MANIFEST.as_bytes()),
        ("../evil.yaml", b"x"),
    ]);
    assert!(err(upload(&a, escape, None), 400)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("outside"));
    let bomb = zip(&[
        ("manifest.yaml", MANIFEST.as_bytes()),
        ("big", &vec![0u8; 200 * 1024]),
    ]);
    err(upload(&a, bomb, None), 413);
    let broken_class =
        "Namespaces:\n  =: t2\nName: App\nMethods:\n  deploy:\n    Body:\n      - $x: [\n";
    let manifest2 = MANIFEST.replace("t.App", "t2.App");
    let broken = zip(&[
        ("manifest.yaml", manifest2.as_bytes()),
        ("Classes/App.yaml", broken_class.as_bytes()),
    ]);
    let e = err(upload(&a, broken, None), 400);
    let diags = &e["error"]["details"]["diagnostics"];
    assert!(
        diags[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Classes/App.yaml:"),
        "{e}"
    );
    assert!(diags[0]["line"].is_number() && diags[0]["column"].is_number());
    assert_eq!(
        ok(a.get("/v1/catalog/packages?include_disabled=true"))["packages"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    err(
        admin
            .req(
                "DELETE",
                &format!(
                    "/v1/catalog/categories/{}",
                    ok(a.get("/v1/catalog/categories"))["categories"][0]["id"]
                        .as_str()
                        .unwrap()
                ),
            )
            .send()
            .unwrap(),
        403,
    );
    ok(a.req("DELETE", &format!("/v1/catalog/packages/{pid}"))
        .send()
        .unwrap());
    err(a.get(&format!("/v1/catalog/packages/{pid}")), 404);
}

#[test]
fn templates_create_environments() {
    let s = start();
    let a = As::new(&s, "p1", "u1", false);
    let t = ok(a.json("POST", "/v1/templates", json!({"name": "t"})));
    let tid = t["id"].as_str().unwrap();
    ok(a.json(
        "POST",
        &format!("/v1/templates/{tid}/services"),
        json!({"?": {"id": "s1", "type": "t.App"}}),
    ));
    assert_eq!(
        ok(a.get(&format!("/v1/templates/{tid}/services/s1")))["?"]["id"],
        "s1"
    );
    let made = ok(a.json(
        "POST",
        &format!("/v1/templates/{tid}/create-environment"),
        json!({"name": "from-t"}),
    ));
    let (eid, sid) = (
        made["environment_id"].as_str().unwrap(),
        made["session_id"].as_str().unwrap(),
    );
    let draft = ok(a
        .req("GET", &format!("/v1/environments/{eid}/services"))
        .header("X-Configuration-Session", sid)
        .send()
        .unwrap());
    assert_eq!(draft[0]["?"]["id"], "s1");
    err(
        a.json(
            "POST",
            &format!("/v1/templates/{tid}/clone"),
            json!({"name": "copy"}),
        ),
        403,
    );
    ok(a.req("DELETE", &format!("/v1/templates/{tid}/services/s1"))
        .send()
        .unwrap());
    ok(a.req("DELETE", &format!("/v1/templates/{tid}"))
        .send()
        .unwrap());
}

/// Every route, with project 2's token against project 1's objects: no 2xx
/// and nothing of project 1 in any body.
#[test]
fn another_project_learns_nothing() {
    let s = start();
    let one = As::new(&s, "p1", "u1", false);
    let two = As::new(&s, "p2", "u2", false);
    let env = ok(one.json("POST", "/v1/environments", json!({"name": "secret-env"})));
    let eid = env["id"].as_str().unwrap().to_string();
    let sid = ok(one
        .req("POST", &format!("/v1/environments/{eid}/configure"))
        .send()
        .unwrap())["id"]
        .as_str()
        .unwrap()
        .to_string();
    let app = json!({"?": {"id": "secretapp", "type": "t.App"}});
    ok(one
        .req("POST", &format!("/v1/environments/{eid}/services"))
        .header("X-Configuration-Session", &sid)
        .json(&app)
        .send()
        .unwrap());
    ok(one
        .req(
            "POST",
            &format!("/v1/environments/{eid}/sessions/{sid}/deploy"),
        )
        .send()
        .unwrap());
    let dep = ok(one.get(&format!("/v1/environments/{eid}/deployments")))["deployments"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let good = zip(&[
        ("manifest.yaml", MANIFEST.as_bytes()),
        ("Classes/App.yaml", CLASS.as_bytes()),
    ]);
    let pid = ok(upload(&one, good, None))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let tid = ok(one.json(
        "POST",
        "/v1/templates",
        json!({"name": "secret-template", "services": [app.clone()]}),
    ))["id"]
        .as_str()
        .unwrap()
        .to_string();
    ok(one.json("PUT", "/v1/policy", json!({"policy": "predeploy_errors(e, o, \"secret-policy\") :- murano:objects(o, e, \"t.App\")"})));

    let e = format!("/v1/environments/{eid}");
    let routes: Vec<(&str, String, Option<Value>)> = vec![
        ("GET", e.clone(), None),
        ("PUT", e.clone(), Some(json!({"name": "x"}))),
        ("DELETE", e.clone(), None),
        ("DELETE", format!("{e}?abandon=true"), None),
        ("GET", format!("{e}/lastStatus"), None),
        ("GET", format!("{e}/model/"), None),
        ("GET", format!("{e}/model/services"), None),
        (
            "PATCH",
            format!("{e}/model/"),
            Some(json!([{"op": "replace", "path": "/name", "value": "x"}])),
        ),
        ("POST", format!("{e}/configure"), None),
        ("GET", format!("{e}/sessions/{sid}"), None),
        ("DELETE", format!("{e}/sessions/{sid}"), None),
        ("POST", format!("{e}/sessions/{sid}/deploy"), None),
        ("GET", format!("{e}/services"), None),
        ("GET", format!("{e}/services/secretapp"), None),
        ("POST", format!("{e}/services"), Some(app.clone())),
        ("PUT", format!("{e}/services/secretapp"), Some(app.clone())),
        ("DELETE", format!("{e}/services/secretapp"), None),
        ("GET", format!("{e}/deployments"), None),
        ("GET", format!("{e}/deployments/{dep}"), None),
        ("POST", format!("{e}/deployments/{dep}/cancel"), None),
        ("GET", format!("{e}/deployments/{dep}/events"), None),
        (
            "POST",
            format!("{e}/actions/secretapp_restart"),
            Some(json!({})),
        ),
        ("GET", format!("{e}/actions/{dep}"), None),
        ("GET", format!("/v1/catalog/packages/{pid}"), None),
        (
            "PATCH",
            format!("/v1/catalog/packages/{pid}"),
            Some(json!([{"op": "replace", "path": "/name", "value": "x"}])),
        ),
        ("DELETE", format!("/v1/catalog/packages/{pid}"), None),
        ("GET", format!("/v1/catalog/packages/{pid}/download"), None),
        ("GET", format!("/v1/catalog/packages/{pid}/ui"), None),
        ("GET", format!("/v1/catalog/packages/{pid}/logo"), None),
        (
            "GET",
            format!("/v1/catalog/packages/{pid}/supplier_logo"),
            None,
        ),
        ("GET", format!("/v1/templates/{tid}"), None),
        (
            "PUT",
            format!("/v1/templates/{tid}"),
            Some(json!({"name": "x"})),
        ),
        ("DELETE", format!("/v1/templates/{tid}"), None),
        ("GET", format!("/v1/templates/{tid}/services"), None),
        (
            "POST",
            format!("/v1/templates/{tid}/services"),
            Some(app.clone()),
        ),
        (
            "GET",
            format!("/v1/templates/{tid}/services/secretapp"),
            None,
        ),
        (
            "PUT",
            format!("/v1/templates/{tid}/services/secretapp"),
            Some(app.clone()),
        ),
        (
            "DELETE",
            format!("/v1/templates/{tid}/services/secretapp"),
            None,
        ),
        (
            "POST",
            format!("/v1/templates/{tid}/create-environment"),
            Some(json!({"name": "x"})),
        ),
        (
            "POST",
            format!("/v1/templates/{tid}/clone"),
            Some(json!({"name": "x"})),
        ),
        ("GET", "/v1/environments?all_tenants=true".into(), None),
        ("GET", "/v1/environments?tenant=p1".into(), None),
    ];
    let secrets = [
        eid.as_str(),
        sid.as_str(),
        dep.as_str(),
        pid.as_str(),
        tid.as_str(),
        "secret-env",
        "secretapp",
        "secret-template",
        "t.App",
        "secret-policy",
    ];
    for (method, path, body) in &routes {
        let mut r = two
            .req(method, path)
            .header("X-Configuration-Session", &sid);
        if let Some(b) = body {
            let ct = if *method == "PATCH" && path.contains("catalog") {
                "application/murano-packages-json-patch"
            } else if *method == "PATCH" {
                "application/env-model-json-patch"
            } else {
                "application/json"
            };
            r = r.header("Content-Type", ct).body(b.to_string());
        }
        let resp = r.send().unwrap();
        let status = resp.status();
        let text = resp.text().unwrap();
        assert!(
            !status.is_success(),
            "{method} {path} answered {status}: {text}"
        );
        for secret in secrets {
            // The path itself is echoed in some messages; ids of the URL are what the caller sent.
            if path.contains(secret) {
                continue;
            }
            assert!(
                !text.contains(secret),
                "{method} {path} leaked {secret}: {text}"
            );
        }
    }
    // Listings of project 2 show nothing of project 1.
    for path in [
        "/v1/environments",
        "/v1/deployments",
        "/v1/catalog/packages",
        "/v1/catalog/packages?catalog=true",
        "/v1/templates",
        "/v1/policy",
    ] {
        let text = two.get(path).text().unwrap();
        for secret in secrets {
            assert!(!text.contains(secret), "{path} leaked {secret}: {text}");
        }
    }
    // Project 1 still has everything.
    assert_eq!(ok(one.get(&e))["name"], "secret-env");
    assert_eq!(
        ok(one.get(&format!("/v1/catalog/packages/{pid}")))["id"],
        json!(pid)
    );
}
