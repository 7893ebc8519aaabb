//! Keystone v3: a scoped token, the service catalog, and re-authentication
//! when the token is about to expire or is refused mid-deployment.

use crate::clouds::{Credentials, Method, Named};
use crate::rest::{error_text, exchange, Retry};
use reqwest::StatusCode;
use serde_json::{json, Value as Json};
use std::time::Duration;

pub struct Session {
    creds: Credentials,
    http: reqwest::Client,
    token: Option<Token>,
    /// How Keystone is tried when it cannot be reached or answers 5xx.
    pub retry: Retry,
}

struct Token {
    id: String,
    expires: Option<jiff::Timestamp>,
    catalog: Json,
    project_id: Option<String>,
    user_id: Option<String>,
}

/// Re-authenticate this long before the token expires.
const EXPIRY_MARGIN: Duration = Duration::from_secs(60);

/// How Keystone's v3 API names `n` (by id, or by name in its domain).
pub(crate) fn named(n: &Named) -> Json {
    let mut m = serde_json::Map::new();
    if let Some(id) = &n.id {
        m.insert("id".into(), json!(id));
    } else if let Some(name) = &n.name {
        m.insert("name".into(), json!(name));
        let domain = match (&n.domain_id, &n.domain_name) {
            (Some(id), _) => json!({"id": id}),
            (None, Some(name)) => json!({"name": name}),
            (None, None) => json!({"id": "default"}),
        };
        m.insert("domain".into(), domain);
    }
    Json::Object(m)
}

/// The body of `POST /v3/auth/tokens` for `creds`.
pub fn auth_body(creds: &Credentials) -> Json {
    let identity = match &creds.method {
        Method::Password { user, password } => {
            let mut u = named(user);
            u["password"] = json!(password);
            json!({"methods": ["password"], "password": {"user": u}})
        }
        Method::Token(t) => json!({"methods": ["token"], "token": {"id": t}}),
        Method::ApplicationCredential {
            id,
            name,
            user,
            secret,
        } => {
            let mut ac = json!({"secret": secret});
            match (id, name) {
                (Some(id), _) => ac["id"] = json!(id),
                (None, name) => {
                    ac["name"] = json!(name);
                    if let Some(u) = user {
                        ac["user"] = named(u);
                    }
                }
            }
            json!({"methods": ["application_credential"], "application_credential": ac})
        }
    };
    let mut auth = json!({"identity": identity});
    if let Some(trust) = &creds.trust_id {
        auth["scope"] = json!({"OS-TRUST:trust": {"id": trust}});
    } else if let Some(p) = &creds.project {
        auth["scope"] = json!({"project": named(p)});
    }
    json!({"auth": auth})
}

impl Session {
    pub fn new(creds: Credentials, http: reqwest::Client) -> Session {
        Session {
            creds,
            http,
            token: None,
            retry: Retry::default(),
        }
    }

    pub fn credentials(&self) -> &Credentials {
        &self.creds
    }

    fn tokens_url(&self) -> String {
        format!("{}/auth/tokens", self.identity_root())
    }

    /// Authenticate now (replacing any token). A Keystone that cannot be
    /// reached or answers 5xx is tried again with backoff; a refusal is final.
    pub async fn authenticate(&mut self) -> Result<(), String> {
        let url = self.tokens_url();
        let body = auth_body(&self.creds);
        let build = || self.http.post(&url).json(&body);
        let reply = exchange(&build, &self.retry, "Keystone", &url).await?;
        if !reply.status.is_success() {
            return Err(format!(
                "Keystone refused the credentials of {} ({})",
                self.creds.source,
                error_text(reply.status, &reply.text)
            ));
        }
        let (id, j) = issued_token(&reply)?;
        let expires = j
            .pointer("/token/expires_at")
            .and_then(Json::as_str)
            .and_then(|t| t.parse::<jiff::Timestamp>().ok());
        let catalog = j.pointer("/token/catalog").cloned().unwrap_or(json!([]));
        let text = |p: &str| j.pointer(p).and_then(Json::as_str).map(str::to_string);
        self.token = Some(Token {
            id,
            expires,
            catalog,
            project_id: text("/token/project/id"),
            user_id: text("/token/user/id"),
        });
        Ok(())
    }

    /// The user the token speaks for.
    pub async fn user_id(&mut self) -> Result<String, String> {
        self.token().await?;
        self.token
            .as_ref()
            .and_then(|t| t.user_id.clone())
            .ok_or_else(|| format!("Keystone's token for {} names no user", self.creds.source))
    }

    /// Keystone's v3 root (`.../v3`), from the credentials' `auth_url`.
    pub fn identity_root(&self) -> String {
        identity_root(&self.creds.auth_url)
    }

    /// The project the token is scoped to.
    pub async fn project_id(&mut self) -> Result<String, String> {
        self.token().await?;
        self.token
            .as_ref()
            .and_then(|t| t.project_id.clone())
            .ok_or_else(|| {
                format!(
                    "the token of {} is not scoped to a project",
                    self.creds.source
                )
            })
    }

    /// A token valid for at least a minute more.
    pub async fn token(&mut self) -> Result<String, String> {
        let stale = match &self.token {
            None => true,
            Some(t) => t.expires.is_some_and(|e| {
                let margin = jiff::SignedDuration::try_from(EXPIRY_MARGIN).unwrap_or_default();
                jiff::Timestamp::now() + margin >= e
            }),
        };
        if stale {
            self.authenticate().await?;
        }
        Ok(self
            .token
            .as_ref()
            .map(|t| t.id.clone())
            .unwrap_or_default())
    }

    /// Forget the token (it was refused): the next call authenticates again.
    pub fn invalidate(&mut self) {
        self.token = None;
    }

    /// The endpoint of service `kind` (e.g. `orchestration`) for the
    /// configured region and interface.
    /// An `*_endpoint_override` of the credentials comes first (its
    /// `%(project_id)s` / `%(tenant_id)s` filled in).
    pub async fn endpoint(&mut self, kind: &str) -> Result<String, String> {
        if let Some(url) = self.creds.endpoint_overrides.get(kind).cloned() {
            let mut url = url.trim_end_matches('/').to_string();
            if url.contains("%(") {
                let project = self.project_id().await?;
                url = url
                    .replace("%(project_id)s", &project)
                    .replace("%(tenant_id)s", &project);
            }
            return Ok(url);
        }
        self.token().await?;
        let catalog = self
            .token
            .as_ref()
            .map(|t| t.catalog.clone())
            .unwrap_or_default();
        find_endpoint(
            &catalog,
            kind,
            &self.creds.interface,
            self.creds.region.as_deref(),
        )
    }
}

/// The token `POST /v3/auth/tokens` issued (its `X-Subject-Token` header)
/// and its body.
pub(crate) fn issued_token(reply: &crate::rest::Reply) -> Result<(String, Json), String> {
    let id = reply
        .headers
        .get("X-Subject-Token")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or("Keystone answered without an X-Subject-Token header")?;
    let body = serde_json::from_str(&reply.text)
        .map_err(|e| format!("Keystone's token is not JSON: {e}"))?;
    Ok((id, body))
}

/// Keystone's v3 root for an `auth_url` given with or without `/v3`.
pub fn identity_root(auth_url: &str) -> String {
    let base = auth_url.trim_end_matches('/');
    if base.ends_with("/v3") {
        base.to_string()
    } else {
        format!("{base}/v3")
    }
}

/// The trustee's credentials `trustee` scoped to trust `trust_id`: a
/// [`Session`] made with them gets tokens that act for the trustor in the
/// trust's project with the trust's roles, and re-authenticates (with the
/// trustee's own secret) whenever such a token expires.
pub fn trust_credentials(trustee: &Credentials, trust_id: &str) -> Credentials {
    let mut c = trustee.clone();
    c.project = None;
    c.trust_id = Some(trust_id.to_string());
    c.source = format!("{} (trust {trust_id})", trustee.source);
    c
}

/// A token scoped to trust `trust_id`, obtained with the trustee's
/// credentials `trustee`.
pub async fn trust_token(
    http: &reqwest::Client,
    trustee: &Credentials,
    trust_id: &str,
) -> Result<String, String> {
    Session::new(trust_credentials(trustee, trust_id), http.clone())
        .token()
        .await
}

/// Deletes trust `trust_id` with a token scoped to it, obtained with the
/// trustee's credentials `trustee`: a trust that impersonates its trustor
/// may end itself (Keystone lets the trustor delete a trust, and such a token
/// acts as the trustor), as Murano's engine ended each deployment's trust.
/// A trust Keystone no longer knows is already gone, and counts as deleted.
pub async fn delete_trust(
    http: &reqwest::Client,
    trustee: &Credentials,
    trust_id: &str,
) -> Result<(), String> {
    let retry = Retry::default();
    let root = identity_root(&trustee.auth_url);
    let tokens = format!("{root}/auth/tokens");
    let body = auth_body(&trust_credentials(trustee, trust_id));
    let build = || http.post(&tokens).json(&body);
    let reply = exchange(&build, &retry, "Keystone", &tokens).await?;
    match reply.status {
        s if s.is_success() => {}
        // Keystone scopes no token to a trust it no longer has (deleted or
        // expired); the trustee's own credentials worked for the task.
        StatusCode::UNAUTHORIZED | StatusCode::NOT_FOUND => return Ok(()),
        s => {
            return Err(format!(
                "Keystone refused a token for trust {trust_id}: {}",
                error_text(s, &reply.text)
            ))
        }
    }
    let (token, _) = issued_token(&reply)?;
    let url = format!("{root}/OS-TRUST/trusts/{trust_id}");
    let build = || http.delete(&url).header("X-Auth-Token", &token);
    let reply = exchange(&build, &retry, "Keystone", &url).await?;
    match reply.status {
        s if s.is_success() || s == StatusCode::NOT_FOUND => Ok(()),
        s => Err(format!(
            "Keystone refused to delete trust {trust_id}: {}",
            error_text(s, &reply.text)
        )),
    }
}

/// Pick an endpoint from a v3 catalog.
pub fn find_endpoint(
    catalog: &Json,
    kind: &str,
    interface: &str,
    region: Option<&str>,
) -> Result<String, String> {
    let services = catalog.as_array().cloned().unwrap_or_default();
    let service = services
        .iter()
        .find(|s| s.get("type").and_then(Json::as_str) == Some(kind))
        .ok_or_else(|| format!("the service catalog has no {kind} service"))?;
    let endpoints = service
        .get("endpoints")
        .and_then(Json::as_array)
        .cloned()
        .unwrap_or_default();
    endpoints
        .iter()
        .filter(|e| e.get("interface").and_then(Json::as_str) == Some(interface))
        .find(|e| {
            region.is_none_or(|r| {
                e.get("region_id").and_then(Json::as_str) == Some(r)
                    || e.get("region").and_then(Json::as_str) == Some(r)
            })
        })
        .and_then(|e| e.get("url").and_then(Json::as_str))
        .map(|u| u.trim_end_matches('/').to_string())
        .ok_or_else(|| {
            format!(
                "the service catalog has no {interface} {kind} endpoint{}",
                region
                    .map(|r| format!(" in region {r}"))
                    .unwrap_or_default()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clouds::from_cloud_entry;

    #[test]
    fn auth_bodies_follow_keystone_v3() {
        let c = from_cloud_entry(
            &json!({"auth": {"auth_url": "u", "username": "demo", "password": "pw", "project_name": "p", "user_domain_name": "D"}}),
            "t".into(),
        )
        .unwrap();
        assert_eq!(
            auth_body(&c),
            json!({"auth": {"identity": {"methods": ["password"], "password": {"user": {"name": "demo", "domain": {"name": "D"}, "password": "pw"}}},
                            "scope": {"project": {"name": "p", "domain": {"id": "default"}}}}})
        );
        let c = from_cloud_entry(&json!({"auth": {"auth_url": "u", "application_credential_id": "i", "application_credential_secret": "s"}}), "t".into()).unwrap();
        assert_eq!(
            auth_body(&c),
            json!({"auth": {"identity": {"methods": ["application_credential"], "application_credential": {"id": "i", "secret": "s"}}}})
        );
    }

    #[test]
    fn trust_credentials_scope_to_the_trust_not_the_project() {
        let c = from_cloud_entry(
            &json!({"auth": {"auth_url": "http://k/v3/", "username": "svc", "password": "pw", "project_name": "service"}}),
            "t".into(),
        )
        .unwrap();
        let t = trust_credentials(&c, "abc");
        let body = auth_body(&t);
        assert_eq!(
            body.pointer("/auth/scope"),
            Some(&json!({"OS-TRUST:trust": {"id": "abc"}}))
        );
        assert_eq!(
            body.pointer("/auth/identity/password/user/name"),
            Some(&json!("svc"))
        );
        assert_eq!(identity_root(&t.auth_url), "http://k/v3");
        assert_eq!(identity_root("http://k:5000"), "http://k:5000/v3");
    }

    #[test]
    fn endpoints_by_interface_and_region() {
        let cat = json!([{"type": "orchestration", "endpoints": [
            {"interface": "public", "region_id": "R1", "url": "http://h1/v1/p"},
            {"interface": "internal", "region_id": "R1", "url": "http://i1/v1/p"},
            {"interface": "public", "region_id": "R2", "url": "http://h2/v1/p/"}]}]);
        assert_eq!(
            find_endpoint(&cat, "orchestration", "public", Some("R2")).unwrap(),
            "http://h2/v1/p"
        );
        assert_eq!(
            find_endpoint(&cat, "orchestration", "internal", None).unwrap(),
            "http://i1/v1/p"
        );
        assert!(find_endpoint(&cat, "orchestration", "admin", None)
            .unwrap_err()
            .contains("admin orchestration"));
        assert!(find_endpoint(&cat, "network", "public", None).is_err());
    }
}
