//! Checking tokens, signing in and trusts against the real Keystone that
//! `.ci/setup.d/05-openstack.sh` starts (VETRO_TEST_CLOUDS_YAML); skipped
//! with a message without it. The test makes its own service user (role
//! `service` in the `service` project) and deletes it at the end.

use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use vetro_openstack::authtoken::{in_domain, Settings, Validator, Verdict};
use vetro_openstack::clouds::{from_clouds_yaml, Credentials, Method, Named};
use vetro_openstack::keystone::{delete_trust, identity_root, trust_token, Session};

fn clouds() -> Option<PathBuf> {
    let c = std::env::var_os("VETRO_TEST_CLOUDS_YAML").map(PathBuf::from);
    if c.is_none() {
        eprintln!("skipped: VETRO_TEST_CLOUDS_YAML is not set (.ci/setup.d/05-openstack.sh starts Keystone)");
    }
    c
}

fn cloud(clouds: &Path, name: &str) -> Credentials {
    let file = clouds.display().to_string();
    let lookup = move |k: &str| (k == "OS_CLIENT_CONFIG_FILE").then(|| file.clone());
    from_clouds_yaml(name, &lookup, Path::new("/")).unwrap()
}

/// A call to Keystone's API with `token`; the status and the JSON body.
async fn call(
    http: &reqwest::Client,
    root: &str,
    method: reqwest::Method,
    path: &str,
    token: &str,
    body: Option<Json>,
) -> (u16, Json) {
    let mut req = http
        .request(method, format!("{root}{path}"))
        .header("X-Auth-Token", token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Json::Null))
}

async fn id_of(http: &reqwest::Client, root: &str, admin: &str, kind: &str, name: &str) -> String {
    let (_, j) = call(
        http,
        root,
        reqwest::Method::GET,
        &format!("/{kind}s?name={name}"),
        admin,
        None,
    )
    .await;
    j[format!("{kind}s")][0]["id"].as_str().unwrap().to_string()
}

/// A new service user; its credentials and id.
async fn service_user(http: &reqwest::Client, admin_creds: &Credentials) -> (Credentials, String) {
    let root = identity_root(&admin_creds.auth_url);
    let admin = Session::new(admin_creds.clone(), http.clone())
        .token()
        .await
        .unwrap();
    let project = id_of(http, &root, &admin, "project", "service").await;
    let role = id_of(http, &root, &admin, "role", "service").await;
    let name = format!("vetro-e2e-svc-{}", std::process::id());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let password = format!("pw-{nanos:x}");
    let body = json!({"user": {"name": name, "domain_id": "default", "password": password}});
    let (status, j) = call(
        http,
        &root,
        reqwest::Method::POST,
        "/users",
        &admin,
        Some(body),
    )
    .await;
    assert_eq!(status, 201, "{j}");
    let id = j["user"]["id"].as_str().unwrap().to_string();
    let path = format!("/projects/{project}/users/{id}/roles/{role}");
    call(http, &root, reqwest::Method::PUT, &path, &admin, None).await;
    let mut creds = admin_creds.clone();
    creds.method = Method::Password {
        user: Named {
            name: Some(name),
            domain_id: Some("default".into()),
            ..Named::default()
        },
        password,
    };
    creds.project = Some(Named {
        name: Some("service".into()),
        domain_id: Some("default".into()),
        ..Named::default()
    });
    (creds, id)
}

#[tokio::test]
async fn tokens_are_checked_cached_within_the_bound_and_trusts_act_for_the_user() {
    let Some(clouds) = clouds() else { return };
    let http = reqwest::Client::new();
    let admin_creds = cloud(&clouds, "vetro-admin");
    let (service, service_id) = service_user(&http, &admin_creds).await;
    let ttl = Duration::from_secs(2);
    let v = Validator::new(
        service.clone(),
        &Settings {
            cache_ttl: ttl,
            cache_size: 100,
        },
    )
    .unwrap();
    assert_eq!(v.check_service().await.unwrap(), service_id);

    // A user's token: its project, user and roles.
    let user = cloud(&clouds, "vetro-test");
    let mut session = Session::new(user.clone(), http.clone());
    let token = session.token().await.unwrap();
    let Verdict::Valid(who) = v.validate(&token).await.unwrap() else {
        panic!("the user's token was refused")
    };
    assert_eq!(who.project_name, "demo");
    assert_eq!(who.user_name, "demo");
    assert!(who.has_role("member") && !who.has_role("admin"), "{who:?}");
    assert!(matches!(
        v.validate("no-such-token").await.unwrap(),
        Verdict::Refused(_)
    ));

    // Signing in with a password gives the same person; a wrong one is refused.
    let Method::Password { password, .. } = &user.method else {
        panic!("vetro-test has a password")
    };
    let (demo, project) = (in_domain("demo", ""), in_domain("demo", "Default"));
    let signed = v.sign_in(&demo, password, &project).await.unwrap().unwrap();
    assert_eq!(signed.identity.user_id, who.user_id);
    assert!(v.sign_in(&demo, "wrong", &project).await.unwrap().is_err());

    // A trust from the user to the service: the service's token acts as the
    // user, in the user's project.
    let trust = v
        .create_trust(&token, &who, Duration::from_secs(600))
        .await
        .unwrap();
    let scoped = trust_token(&http, &service, &trust).await.unwrap();
    let Verdict::Valid(acting) = v.validate(&scoped).await.unwrap() else {
        panic!("the trust-scoped token was refused")
    };
    assert_eq!(
        (acting.project_id.as_str(), acting.user_id.as_str()),
        (who.project_id.as_str(), who.user_id.as_str())
    );
    // As Keystone keeps it: impersonating, expiring, Heat may redelegate it once.
    let admin = Session::new(admin_creds.clone(), http.clone())
        .token()
        .await
        .unwrap();
    let root = identity_root(&admin_creds.auth_url);
    let path = format!("/OS-TRUST/trusts/{trust}");
    let (status, t) = call(&http, &root, reqwest::Method::GET, &path, &admin, None).await;
    assert_eq!(status, 200, "{t}");
    let t = &t["trust"];
    assert_eq!(t["trustor_user_id"], json!(who.user_id));
    assert_eq!(t["trustee_user_id"], json!(service_id));
    assert_eq!(t["project_id"], json!(who.project_id));
    assert_eq!(
        (&t["impersonation"], &t["redelegation_count"]),
        (&json!(true), &json!(1))
    );
    assert!(t["expires_at"].is_string(), "{t}");
    // Deleted through itself once its task is done; deleting it again is no error.
    delete_trust(&http, &service, &trust).await.unwrap();
    let (status, _) = call(&http, &root, reqwest::Method::GET, &path, &admin, None).await;
    assert_eq!(status, 404);
    assert!(trust_token(&http, &service, &trust).await.is_err());
    delete_trust(&http, &service, &trust).await.unwrap();

    // Revoked: still accepted from the cache, refused once the entry lapses.
    // (A new token, so that its cache entry starts now.)
    session.invalidate();
    let token = session.token().await.unwrap();
    assert!(matches!(
        v.validate(&token).await.unwrap(),
        Verdict::Valid(_)
    ));
    let root = identity_root(&user.auth_url);
    let r = http
        .delete(format!("{root}/auth/tokens"))
        .header("X-Auth-Token", &token)
        .header("X-Subject-Token", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 204);
    let revoked = Instant::now();
    assert!(matches!(
        v.validate(&token).await.unwrap(),
        Verdict::Valid(_)
    ));
    tokio::time::sleep(ttl + Duration::from_millis(100)).await;
    assert!(matches!(
        v.validate(&token).await.unwrap(),
        Verdict::Refused(_)
    ));
    eprintln!(
        "revoked token refused {:?} after its revocation (cache bound {ttl:?})",
        revoked.elapsed()
    );

    let admin = Session::new(admin_creds.clone(), http.clone())
        .token()
        .await
        .unwrap();
    let root = identity_root(&admin_creds.auth_url);
    let path = format!("/users/{service_id}");
    call(&http, &root, reqwest::Method::DELETE, &path, &admin, None).await;
}

/// POSTs `body` to Keystone's `/{kind}s` as `admin`; the new object's id.
async fn create(http: &reqwest::Client, root: &str, admin: &str, kind: &str, body: Json) -> String {
    let (status, j) = call(
        http,
        root,
        reqwest::Method::POST,
        &format!("/{kind}s"),
        admin,
        Some(json!({kind: body})),
    )
    .await;
    assert_eq!(status, 201, "{kind}: {j}");
    j[kind]["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_password_sign_in_names_the_user_s_and_the_project_s_domains() {
    let Some(clouds) = clouds() else { return };
    let http = reqwest::Client::new();
    let admin_creds = cloud(&clouds, "vetro-admin");
    let root = identity_root(&admin_creds.auth_url);
    let admin = Session::new(admin_creds.clone(), http.clone())
        .token()
        .await
        .unwrap();
    // A domain of the test's own with a user and a project of the same
    // names as the Default domain's demo user and project.
    let domain_name = format!("vetro-e2e-dom-{}", std::process::id());
    let domain = create(&http, &root, &admin, "domain", json!({"name": domain_name})).await;
    let password = format!("pw-{domain}");
    let user = create(
        &http,
        &root,
        &admin,
        "user",
        json!({"name": "demo", "domain_id": domain, "password": password}),
    )
    .await;
    let project = create(
        &http,
        &root,
        &admin,
        "project",
        json!({"name": "demo", "domain_id": domain}),
    )
    .await;
    let member = id_of(&http, &root, &admin, "role", "member").await;
    let grant = format!("/projects/{project}/users/{user}/roles/{member}");
    call(&http, &root, reqwest::Method::PUT, &grant, &admin, None).await;

    let v = Validator::new(admin_creds.clone(), &Settings::default()).unwrap();
    let (name, in_dom) = (
        in_domain("demo", &domain_name),
        in_domain("demo", &domain_name),
    );
    let signed = v.sign_in(&name, &password, &in_dom).await.unwrap().unwrap();
    assert_eq!(
        (
            signed.identity.user_id.as_str(),
            signed.identity.project_id.as_str()
        ),
        (user.as_str(), project.as_str())
    );
    // The same names without the domains are the Default domain's, where
    // this password is not demo's.
    assert!(v
        .sign_in(&in_domain("demo", ""), &password, &in_domain("demo", ""))
        .await
        .unwrap()
        .is_err());

    // A domain is deleted once disabled; its user and project go with it.
    let path = format!("/domains/{domain}");
    call(
        &http,
        &root,
        reqwest::Method::PATCH,
        &path,
        &admin,
        Some(json!({"domain": {"enabled": false}})),
    )
    .await;
    let (status, _) = call(&http, &root, reqwest::Method::DELETE, &path, &admin, None).await;
    assert_eq!(status, 204);
}
