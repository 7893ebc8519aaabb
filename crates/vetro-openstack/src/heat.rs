//! Heat's stack API: find, create or update, wait with backoff, outputs,
//! template, delete. Requests go through [`crate::rest::Api`]: tried again
//! with backoff when Heat answers 5xx or cannot be reached, sent again with a
//! new token when Keystone's token was refused.

use crate::api::Api;
use crate::environment::HeatEnvironment;
use crate::keystone::Session;
use crate::rest::Retry;
use reqwest::Method;
use serde_json::{json, Value as Json};
use std::time::{Duration, Instant};

/// Where a stack is and what Heat says of it.
#[derive(Clone, Debug)]
pub struct Stack {
    pub name: String,
    pub id: String,
    pub status: String,
    pub reason: String,
    pub updated: Option<String>,
    pub outputs: Json,
}

impl Stack {
    fn from_json(j: &Json) -> Stack {
        let s = |k: &str| {
            j.get(k)
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let outputs = j
            .get("outputs")
            .and_then(Json::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|o| {
                        Some((
                            o.get("output_key")?.as_str()?.to_string(),
                            o.get("output_value").cloned().unwrap_or(Json::Null),
                        ))
                    })
                    .collect::<serde_json::Map<_, _>>()
            })
            .map(Json::Object)
            .unwrap_or_else(|| json!({}));
        Stack {
            name: s("stack_name"),
            id: s("id"),
            status: s("stack_status"),
            reason: s("stack_status_reason"),
            updated: j
                .get("updated_time")
                .and_then(Json::as_str)
                .map(str::to_string),
            outputs,
        }
    }
}

/// How long to wait and how often to look. Heat has no way to tell a
/// client that it finished, so the stack is looked at: first soon after
/// Heat accepted the request, then at intervals that grow with the time
/// already waited, so the delay between Heat finishing and the engine
/// noticing stays a small share of Heat's own time while a long operation
/// costs Heat few requests.
#[derive(Clone, Debug)]
pub struct Waiting {
    /// Longest wait for one stack operation.
    pub timeout: Duration,
    /// First look this long after Heat accepted the request.
    pub first: Duration,
    /// Each next look `share` times the time waited so far, within `min`..`max`.
    pub share: f64,
    pub min: Duration,
    pub max: Duration,
    /// Tries of a request Heat answers 5xx or does not answer.
    pub retry: Retry,
}

impl Default for Waiting {
    fn default() -> Waiting {
        Waiting {
            timeout: Duration::from_secs(3600),
            first: Duration::from_millis(100),
            share: 0.15,
            min: Duration::from_millis(100),
            max: Duration::from_secs(2),
            retry: Retry::default(),
        }
    }
}

impl Waiting {
    /// The pause before the next look, `waited` after Heat accepted the request.
    pub fn pause(&self, waited: Duration) -> Duration {
        if waited.is_zero() {
            return self.first;
        }
        waited.mul_f64(self.share).clamp(self.min, self.max)
    }
}

/// How a push went on the wire, for measurements: the requests sent to
/// Heat, how many of them looked at the stack while Heat worked, and when
/// the last look (the one that saw the operation end) was sent.
#[derive(Clone, Copy, Debug)]
pub struct PushTiming {
    pub requests: u32,
    pub looks: u32,
    pub last_look: std::time::SystemTime,
}

impl Default for PushTiming {
    fn default() -> PushTiming {
        PushTiming {
            requests: 0,
            looks: 0,
            last_look: std::time::UNIX_EPOCH,
        }
    }
}

pub struct Heat<'a> {
    pub session: &'a mut Session,
    pub http: &'a reqwest::Client,
    pub waiting: &'a Waiting,
    /// Heat's endpoint (from the catalog, or given).
    pub endpoint: &'a str,
    /// The requests of the current push.
    pub timing: PushTiming,
}

impl Heat<'_> {
    /// One request; `Ok(None)` for 404.
    async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<&Json>,
    ) -> Result<Option<Json>, String> {
        self.timing.requests += 1;
        Api {
            session: self.session,
            http: self.http,
            endpoint: self.endpoint,
            service: "Heat",
            retry: &self.waiting.retry,
        }
        .call(method, path, body)
        .await
    }

    pub async fn find(&mut self, name: &str) -> Result<Option<Stack>, String> {
        Ok(self
            .call(Method::GET, &format!("/stacks/{name}"), None)
            .await?
            .map(|j| Stack::from_json(&j["stack"])))
    }

    async fn get(&mut self, s: &Stack) -> Result<Option<Stack>, String> {
        Ok(self
            .call(Method::GET, &format!("/stacks/{}/{}", s.name, s.id), None)
            .await?
            .map(|j| Stack::from_json(&j["stack"])))
    }

    /// Create `name`, or update it when it exists (so a retried push never
    /// makes a second stack); wait until Heat is done; the stack.
    pub async fn push(
        &mut self,
        name: &str,
        template: &Json,
        parameters: &Json,
        environment: &HeatEnvironment,
    ) -> Result<Stack, String> {
        let existing = self.find(name).await?;
        let body = json!({"template": template, "parameters": parameters,
            "environment": environment.environment, "files": environment.files});
        match existing {
            None => {
                let mut create = body.clone();
                create["stack_name"] = json!(name);
                create["disable_rollback"] = json!(true);
                create["timeout_mins"] = json!(self.waiting.timeout.as_secs().div_ceil(60).max(1));
                match self.call(Method::POST, "/stacks", Some(&create)).await {
                    Ok(created) => {
                        let id = created
                            .as_ref()
                            .and_then(|c| c.pointer("/stack/id"))
                            .and_then(Json::as_str)
                            .unwrap_or_default();
                        let stack = Stack {
                            name: name.into(),
                            id: id.into(),
                            status: String::new(),
                            reason: String::new(),
                            updated: None,
                            outputs: json!({}),
                        };
                        self.wait(&stack, "CREATE", None).await
                    }
                    // Another run created it meanwhile: update that one.
                    Err(e) if e.contains("409") => {
                        Box::pin(self.push(name, template, parameters, environment)).await
                    }
                    Err(e) => Err(e),
                }
            }
            Some(stack) => {
                let before = if stack.status.ends_with("_IN_PROGRESS") {
                    // An earlier, interrupted run's operation: let it finish first.
                    let action = stack.status.trim_end_matches("_IN_PROGRESS").to_string();
                    let _ = self.wait(&stack, &action, None).await;
                    self.get(&stack).await?.unwrap_or(stack)
                } else {
                    stack
                };
                self.call(
                    Method::PUT,
                    &format!("/stacks/{}/{}", before.name, before.id),
                    Some(&body),
                )
                .await?;
                self.wait(&before, "UPDATE", Some(&before)).await
            }
        }
    }

    /// Poll with backoff until `action` completes or fails. With `before`,
    /// the stack as it was before the request: its old state does not count.
    async fn wait(
        &mut self,
        stack: &Stack,
        action: &str,
        before: Option<&Stack>,
    ) -> Result<Stack, String> {
        let start = Instant::now();
        loop {
            tokio::time::sleep(self.waiting.pause(start.elapsed())).await;
            self.timing.looks += 1;
            self.timing.last_look = std::time::SystemTime::now();
            let Some(now) = self.get(stack).await? else {
                return Err(format!(
                    "stack {} disappeared while Heat worked on it",
                    stack.name
                ));
            };
            let old = before.is_some_and(|b| b.status == now.status && b.updated == now.updated);
            if !old {
                if now.status == format!("{action}_COMPLETE") {
                    return Ok(now);
                }
                if now.status.ends_with("_FAILED") {
                    return Err(self.failure(&now).await);
                }
            }
            if start.elapsed() >= self.waiting.timeout {
                return Err(format!(
                    "stack {}: Heat did not finish {} within {} s (status {})",
                    stack.name,
                    action.to_lowercase(),
                    self.waiting.timeout.as_secs(),
                    now.status
                ));
            }
        }
    }

    /// Heat's reasons for a failed stack: its own and those of the resources
    /// whose events say they failed.
    async fn failure(&mut self, s: &Stack) -> String {
        let mut reasons = Vec::new();
        let path = format!(
            "/stacks/{}/{}/events?resource_status=FAILED&sort_dir=asc",
            s.name, s.id
        );
        if let Ok(Some(ev)) = self.call(Method::GET, &path, None).await {
            for e in ev
                .get("events")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
            {
                let name = e
                    .get("resource_name")
                    .and_then(Json::as_str)
                    .unwrap_or_default();
                let why = e
                    .get("resource_status_reason")
                    .and_then(Json::as_str)
                    .unwrap_or_default();
                let line = format!("{name}: {why}");
                if name != s.name && !why.is_empty() && !reasons.contains(&line) {
                    reasons.push(line);
                }
            }
        }
        let mut text = format!("stack {} is {}: {}", s.name, s.status, s.reason);
        if !reasons.is_empty() {
            text.push_str(&format!(" (resources: {})", reasons.join("; ")));
        }
        text
    }

    pub async fn template(&mut self, name: &str) -> Result<Option<Json>, String> {
        let Some(s) = self.find(name).await? else {
            return Ok(None);
        };
        self.call(
            Method::GET,
            &format!("/stacks/{}/{}/template", s.name, s.id),
            None,
        )
        .await
    }

    /// Delete `name` (nothing to do when it does not exist) and wait until it is gone.
    pub async fn delete(&mut self, name: &str) -> Result<(), String> {
        let Some(s) = self.find(name).await? else {
            return Ok(());
        };
        self.call(
            Method::DELETE,
            &format!("/stacks/{}/{}", s.name, s.id),
            None,
        )
        .await?;
        let start = Instant::now();
        loop {
            tokio::time::sleep(self.waiting.pause(start.elapsed())).await;
            match self.get(&s).await? {
                None => return Ok(()),
                Some(now) if now.status == "DELETE_COMPLETE" => return Ok(()),
                Some(now) if now.status == "DELETE_FAILED" => return Err(self.failure(&now).await),
                Some(now) if start.elapsed() >= self.waiting.timeout => {
                    return Err(format!(
                        "stack {name}: not deleted within {} s (status {})",
                        self.waiting.timeout.as_secs(),
                        now.status
                    ))
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_start_soon_and_grow_with_the_time_waited() {
        let w = Waiting::default();
        let ms = |n| Duration::from_millis(n);
        assert_eq!(w.pause(Duration::ZERO), ms(100));
        assert!(w.first <= ms(500), "the first look within half a second");
        // Never closer than 100 ms (no busy polling), never further than 2 s.
        assert_eq!(w.pause(ms(200)), ms(100));
        assert_eq!(w.pause(ms(3000)), ms(450));
        assert_eq!(w.pause(Duration::from_secs(600)), ms(2000));
        // The looks of a 3 s operation: few, and the last within 15% of it.
        let (mut t, mut looks) = (Duration::ZERO, 0);
        while t < ms(3000) {
            t += w.pause(t);
            looks += 1;
        }
        assert!(looks <= 20, "{looks}");
        assert!(t - ms(3000) <= ms(450), "{t:?}");
    }
}
