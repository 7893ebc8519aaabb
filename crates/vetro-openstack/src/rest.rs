//! How every OpenStack request is sent: again with backoff while the service
//! cannot be reached or answers 5xx (a service restarting, a dropped
//! keep-alive connection, a proxy's 502/503).

use reqwest::StatusCode;
use serde_json::Value as Json;
use std::time::Duration;

/// How often, and how far apart, a request is tried.
#[derive(Clone, Debug)]
pub struct Retry {
    /// Tries in all (at least one).
    pub attempts: u32,
    /// Wait before the second try; each next wait is twice as long, up to `max`.
    pub first: Duration,
    pub max: Duration,
}

impl Default for Retry {
    fn default() -> Retry {
        Retry {
            attempts: 5,
            first: Duration::from_millis(250),
            max: Duration::from_secs(8),
        }
    }
}

/// A service's answer.
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

/// Send what `build` makes until the service answers something other than
/// 5xx or `retry` is spent; `service` and `url` name it in the error. (`Sync`
/// so that the future is `Send`: a service awaits it in its handlers.)
pub async fn exchange(
    build: &(dyn Fn() -> reqwest::RequestBuilder + Sync),
    retry: &Retry,
    service: &str,
    url: &str,
) -> Result<Reply, String> {
    let mut delay = retry.first;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let why = match build().send().await {
            Ok(resp) => {
                let status = resp.status();
                let headers = resp.headers().clone();
                match resp.text().await {
                    Ok(text) if !status.is_server_error() => {
                        return Ok(Reply {
                            status,
                            headers,
                            text,
                        })
                    }
                    Ok(text) => format!("{service} answered {}", error_text(status, &text)),
                    Err(e) => format!("{service} at {url}: the answer was cut short: {e}"),
                }
            }
            Err(e) if e.is_timeout() => format!("{service} at {url} did not answer in time: {e}"),
            Err(e) => format!("{service} at {url} cannot be reached: {}", chain(&e)),
        };
        if attempt >= retry.attempts.max(1) {
            return Err(format!("{why} (gave up after {attempt} tries)"));
        }
        tracing::debug!("{why}; trying again in {delay:?}");
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(retry.max);
    }
}

/// An error with its causes (reqwest's own text hides hyper's reason).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

/// The message of an OpenStack error body (Keystone's `error.message`,
/// Heat's `explanation`/`error.message`, Neutron's `NeutronError.message`).
pub fn error_text(status: StatusCode, body: &str) -> String {
    let j: Json = serde_json::from_str(body).unwrap_or(Json::Null);
    let msg = j
        .pointer("/error/message")
        .or_else(|| j.pointer("/NeutronError/message"))
        .or_else(|| j.get("explanation"))
        .and_then(Json::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| body.chars().take(300).collect());
    format!("{status}: {msg}")
}
