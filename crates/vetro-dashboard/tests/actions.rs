//! An action's form built from its method's argument contracts: typed
//! fields, messages at the field for what the contract refuses, and the
//! typed arguments queued with the action; the package page with the
//! manifest's requirements.

use axum::http::{header, StatusCode};
use serde_json::json;

mod support;
use support::*;

const MANIFEST: &str = "\
Format: 1.4
Type: Application
FullName: com.example.tools
Name: Tools
Description: Tools for the action test.
Require:
  com.example.base: 1.0.0
Classes:
  com.example.tools.Tool: Tool.yaml
";

const CLASS: &str = "\
Namespaces:
  =: com.example.tools
Name: Tool
Methods:
  scale:
    Usage: Action
    Arguments:
      - count:
          Contract: $.int().notNull().check($ > 0 and $ <= 8)
      - mode:
          Contract: $.string().notNull().check($ in list(fast, careful))
          Default: careful
      - dryRun:
          Contract: $.bool()
      - zones:
          Contract: [$.string()]
    Body:
      - Return: $count
";

fn archive() -> Vec<u8> {
    vetro_dsl::package::write_zip([("manifest.yaml", MANIFEST), ("Classes/Tool.yaml", CLASS)])
        .unwrap()
}

/// A signed-in person and an environment whose deployed model offers the
/// `scale` action of a `Tool`.
async fn deployed() -> (App, String, String, String) {
    let a = app().await;
    let mut p = package(1, "Tools", "tools");
    p.meta.fully_qualified_name = "com.example.tools".into();
    p.meta.class_definitions = vec!["com.example.tools.Tool".into()];
    p.archive = archive();
    a.store.insert_package(&p).await.unwrap();
    let model = json!({"Objects": {
        "?": {"id": "e1", "type": "io.murano.Environment"},
        "name": "tools",
        "applications": [{
            "?": {"id": "t1", "type": "com.example.tools.Tool/0.0.0@com.example.tools",
                  "_actions": {"t1_scale": {"name": "scale", "title": "scale", "enabled": true}}},
            "name": "tool"
        }]
    }});
    let env = a
        .store
        .create_environment("demo", "tools", &model, None)
        .await
        .unwrap();
    let (cookie, csrf) = a.sign_in().await;
    (a, env.id, cookie, csrf)
}

/// Posts the `scale` action's form.
async fn post_scale(a: &App, env: &str, cookie: &str, fields: &[(&str, &str)]) -> Answer {
    let path = format!("/environments/{env}/actions/t1_scale");
    a.post(&path, cookie, fields).await
}

#[tokio::test]
async fn the_action_form_has_a_typed_field_per_argument() {
    let (a, env, cookie, _) = deployed().await;
    let r = a
        .get(&format!("/environments/{env}/actions/t1_scale"), &cookie)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let b = &r.body;
    for want in [
        r#"<label for="f-count">count"#,
        r#"id="f-count" type="number" name="count" value="" required min="1" max="8""#,
        r#"<select id="f-mode" name="mode""#,
        r#"<option value="careful" selected>careful</option>"#,
        r#"<option value="fast">fast</option>"#,
        r#"id="f-dryRun" type="checkbox" name="dryRun""#,
        r#"<textarea id="f-zones" name="zones""#,
        "One item per line.",
        "Contract: $.int().notNull().check($ &gt; 0 and $ &lt;= 8)",
    ] {
        assert!(b.contains(want), "missing {want} in\n{b}");
    }
    assert!(
        !b.contains("a JSON object"),
        "no JSON box when the method is known"
    );
}

#[tokio::test]
async fn refused_values_are_named_at_their_field_and_nothing_runs() {
    let (a, env, cookie, csrf) = deployed().await;
    let r = post_scale(
        &a,
        &env,
        &cookie,
        &[("_csrf", &csrf), ("count", "9"), ("mode", "slow")],
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let error = |id: &str| {
        let key = format!("id=\"f-{id}-error\"");
        let at = r.body.find(&key).unwrap_or_else(|| panic!("no {key}"));
        r.body[at..].split("</p>").next().unwrap().to_string()
    };
    assert!(error("count").contains("at most 8"), "{}", error("count"));
    assert!(error("mode").contains("Choose one"), "{}", error("mode"));
    assert!(r.body.contains(r#"value="9""#), "what was typed is kept");
    let first = vetro_store::page::PageRequest::first(10);
    let tasks = a
        .store
        .list_deployments(Some(&env), "demo", &first)
        .await
        .unwrap();
    assert!(tasks.items.is_empty(), "nothing was queued");
}

#[tokio::test]
async fn accepted_values_are_queued_typed() {
    let (a, env, cookie, csrf) = deployed().await;
    let fields = [
        ("_csrf", csrf.as_str()),
        ("count", "3"),
        ("mode", "fast"),
        ("dryRun", "true"),
        ("zones", "a\r\nb\r\n"),
    ];
    let r = post_scale(&a, &env, &cookie, &fields).await;
    assert_eq!(r.status, StatusCode::SEE_OTHER, "{}", r.body);
    let to = r.headers[header::LOCATION].to_str().unwrap();
    let task = to.rsplit('/').next().unwrap();
    let t = a.store.get_task(task).await.unwrap();
    assert_eq!(
        t.payload["args"],
        json!({"count": 3, "mode": "fast", "dryRun": true, "zones": ["a", "b"]})
    );
}

#[tokio::test]
async fn the_package_page_lists_its_requirements_and_classes() {
    let a = app().await;
    let mut p = package(1, "Tools", "tools");
    p.meta.class_definitions = vec!["com.example.tools.Tool".into()];
    p.archive = archive();
    let id = a.store.insert_package(&p).await.unwrap().id;
    let (cookie, _) = a.sign_in().await;
    let r = a.get(&format!("/catalog/{id}"), &cookie).await;
    assert_eq!(r.status, StatusCode::OK);
    for want in [
        "<dt>Requires</dt>",
        r#"<a href="/catalog?q=com.example.base"><code>com.example.base</code></a> 1.0.0"#,
        "<code>com.example.tools.Tool</code>",
    ] {
        assert!(r.body.contains(want), "missing {want} in\n{}", r.body);
    }
}
