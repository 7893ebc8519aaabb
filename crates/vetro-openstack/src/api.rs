//! A service of the catalog (Heat, Neutron) called with the session's token:
//! sent through [`crate::rest::exchange`], and once more with a new token when
//! Keystone's token was refused (it expired or was revoked mid-deployment).

use crate::keystone::Session;
use crate::rest::{error_text, exchange, Retry};
use reqwest::{Method, StatusCode};
use serde_json::Value as Json;

/// One service of the catalog, called with the session's token.
pub struct Api<'a> {
    pub session: &'a mut Session,
    pub http: &'a reqwest::Client,
    /// The service's endpoint (from the catalog).
    pub endpoint: &'a str,
    /// How users know it in messages: `Heat`, `Neutron`.
    pub service: &'static str,
    pub retry: &'a Retry,
}

impl Api<'_> {
    /// One request; `Ok(None)` for 404, the JSON body (null when empty) for 2xx.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<&Json>,
    ) -> Result<Option<Json>, String> {
        let url = format!("{}{path}", self.endpoint);
        let mut refreshed = false;
        loop {
            let token = self.session.token().await?;
            let build = || {
                let req = self
                    .http
                    .request(method.clone(), &url)
                    .header("X-Auth-Token", &token)
                    .header("Accept", "application/json");
                match body {
                    Some(b) => req.json(b),
                    None => req,
                }
            };
            let reply = exchange(&build, self.retry, self.service, &url).await?;
            match reply.status {
                StatusCode::NOT_FOUND => return Ok(None),
                // The token expired or was revoked: once more with a new one.
                StatusCode::UNAUTHORIZED if !refreshed => {
                    self.session.invalidate();
                    refreshed = true;
                }
                s if s.is_success() => {
                    return Ok(Some(if reply.text.trim().is_empty() {
                        Json::Null
                    } else {
                        serde_json::from_str(&reply.text).unwrap_or(Json::Null)
                    }))
                }
                s => {
                    return Err(format!(
                        "{} refused {method} {path}: {}",
                        self.service,
                        error_text(s, &reply.text)
                    ))
                }
            }
        }
    }
}
