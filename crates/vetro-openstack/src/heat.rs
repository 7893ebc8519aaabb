//! Heat's stack API: find, create or update, wait with backoff, outputs,
//! template, delete. Requests go through [`crate::rest::Api`]: tried again
//! with backoff when Heat answers 5xx or cannot be reached, sent again with a
//! new token when Keystone's token was refused.

use crate::api::Api;
use crate::environment::HeatEnvironment;
use crate::keystone::Session;
use crate::notifications::StackEnded;
use crate::rest::Retry;
use reqwest::Method;
use serde_json::{json, Value as Json};
use std::time::{Duration, Instant};
use tokio::sync::broadcast::{self, error::RecvError};

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

/// How long to wait and how often to look. Unless Heat's notifications
/// reach the engine (`crate::notifications`), nothing tells it that Heat
/// finished, so the stack is looked at: first soon after Heat accepted the
/// request, then at intervals that grow with the time already waited, so
/// the delay between Heat finishing and the engine noticing stays a small
/// share of Heat's own time while a long operation costs Heat few requests.
/// A notification that the stack's operation ended brings the next look
/// forward to at once.
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

/// Pause before a look again soon after one that a notification (or the
/// stack's event) said would find the end, but did not yet: Heat sends the
/// notification, then records the event, then stores the stack's state,
/// milliseconds apart. Each such pause doubles, up to the usual one.
const SOON: Duration = Duration::from_millis(5);

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
/// Heat, how many of them looked at the stack while Heat worked, when the
/// last look (the one that saw the operation end) was sent, and when the
/// last notification about the stack woke the wait (`UNIX_EPOCH`: none).
#[derive(Clone, Copy, Debug)]
pub struct PushTiming {
    pub requests: u32,
    pub looks: u32,
    pub last_look: std::time::SystemTime,
    pub woken: std::time::SystemTime,
}

impl Default for PushTiming {
    fn default() -> PushTiming {
        PushTiming {
            requests: 0,
            looks: 0,
            last_look: std::time::UNIX_EPOCH,
            woken: std::time::UNIX_EPOCH,
        }
    }
}

/// One of Heat's events about the stack itself (not one of its resources):
/// Heat records one when an operation starts and one when it ends.
#[derive(Clone, Debug, PartialEq)]
pub struct StackEvent {
    pub id: String,
    /// `UPDATE_IN_PROGRESS`, `UPDATE_COMPLETE`, `UPDATE_FAILED`...
    pub status: String,
}

/// Whether the operation awaited has ended: the stack's newest event is not
/// `mark` (its newest before the request) and records an end, not a start.
/// The stack's `updated_time` cannot tell: Heat gives it in whole seconds,
/// so an update that starts in the second the previous one did would look
/// like the previous one.
pub fn ended(newest: Option<&StackEvent>, mark: Option<&str>) -> bool {
    newest.is_some_and(|e| Some(e.id.as_str()) != mark && !e.status.ends_with("_IN_PROGRESS"))
}

pub struct Heat<'a> {
    pub session: &'a mut Session,
    pub http: &'a reqwest::Client,
    pub waiting: &'a Waiting,
    /// Heat's endpoint (from the catalog, or given).
    pub endpoint: &'a str,
    /// The requests of the current push.
    pub timing: PushTiming,
    /// Heat's notifications of ended operations, when they are listened to
    /// (subscribed before the request, so that none is missed).
    pub ended: Option<broadcast::Receiver<StackEnded>>,
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

    /// Stack `name`'s id and status, without its outputs: one request (the
    /// listing filtered by name), where [`Heat::find`] is two (Heat answers
    /// a name with a redirect to the stack) and resolves the outputs.
    pub async fn locate(&mut self, name: &str) -> Result<Option<Stack>, String> {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("name", name)
            .finish();
        let listed = self
            .call(Method::GET, &format!("/stacks?{query}"), None)
            .await?;
        let stacks = listed
            .as_ref()
            .and_then(|l| l.get("stacks"))
            .and_then(Json::as_array);
        Ok(stacks
            .into_iter()
            .flatten()
            .map(Stack::from_json)
            .find(|s| s.name == name))
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
        let existing = self.locate(name).await?;
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
                if stack.status.ends_with("_IN_PROGRESS") {
                    // An earlier, interrupted run's operation: let it finish first.
                    let action = stack.status.trim_end_matches("_IN_PROGRESS").to_string();
                    let _ = self.wait(&stack, &action, None).await;
                }
                let mark = self.newest_event(&stack).await?.map(|e| e.id);
                self.call(
                    Method::PUT,
                    &format!("/stacks/{}/{}", stack.name, stack.id),
                    Some(&body),
                )
                .await?;
                self.wait(&stack, "UPDATE", mark.as_deref()).await
            }
        }
    }

    /// The stack's newest event about itself.
    pub async fn newest_event(&mut self, s: &Stack) -> Result<Option<StackEvent>, String> {
        let query: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("resource_name", &s.name)
            .append_pair("resource_type", "OS::Heat::Stack")
            .append_pair("sort_dir", "desc")
            .append_pair("limit", "1")
            .finish();
        let path = format!("/stacks/{}/{}/events?{query}", s.name, s.id);
        let Some(listed) = self.call(Method::GET, &path, None).await? else {
            return Err(format!("stack {} is gone while Heat worked on it", s.name));
        };
        let first = listed
            .get("events")
            .and_then(Json::as_array)
            .and_then(|a| a.first());
        Ok(first.and_then(|e| {
            Some(StackEvent {
                id: e.get("id")?.as_str()?.to_string(),
                status: e.get("resource_status")?.as_str()?.to_string(),
            })
        }))
    }

    /// Sleep `pause`, or less when a notification says an operation of
    /// stack `id` ended (then `true`).
    async fn pause(&mut self, pause: Duration, id: &str) -> bool {
        let sleep = tokio::time::sleep(pause);
        tokio::pin!(sleep);
        let Some(ended) = self.ended.as_mut() else {
            sleep.await;
            return false;
        };
        loop {
            tokio::select! {
                () = &mut sleep => return false,
                got = ended.recv() => match got {
                    Ok(e) if e.stack_id == id => break,
                    Ok(_) => {}
                    // Too many at once to know: look.
                    Err(RecvError::Lagged(_)) => break,
                    Err(RecvError::Closed) => {
                        self.ended = None;
                        sleep.await;
                        return false;
                    }
                },
            }
        }
        self.timing.woken = std::time::SystemTime::now();
        true
    }

    /// Wait until `action` ends: the stack's newest event is an end that is
    /// not `mark` (its newest before the request; `None` for a new stack or
    /// when any end will do) and Heat has stored the stack's state after it.
    /// The stack, when `action` completed; Heat's reasons otherwise.
    async fn wait(
        &mut self,
        stack: &Stack,
        action: &str,
        mark: Option<&str>,
    ) -> Result<Stack, String> {
        let start = Instant::now();
        let mut pause = self.waiting.first;
        let mut soon = SOON;
        loop {
            let woken = self.pause(pause, &stack.id).await;
            self.timing.looks += 1;
            self.timing.last_look = std::time::SystemTime::now();
            let newest = self.newest_event(stack).await?;
            let mut nearly = woken;
            if ended(newest.as_ref(), mark) {
                let Some(now) = self.get(stack).await? else {
                    return Err(format!(
                        "stack {} disappeared while Heat worked on it",
                        stack.name
                    ));
                };
                if !now.status.ends_with("_IN_PROGRESS") {
                    if now.status == format!("{action}_COMPLETE") {
                        return Ok(now);
                    }
                    return Err(self.failure(&now).await);
                }
                nearly = true;
            }
            let waited = start.elapsed();
            if waited >= self.waiting.timeout {
                return Err(format!(
                    "stack {}: Heat did not finish {} within {} s (last event {})",
                    stack.name,
                    action.to_lowercase(),
                    self.waiting.timeout.as_secs(),
                    newest.map(|e| e.status).unwrap_or_else(|| "none".into())
                ));
            }
            pause = self.waiting.pause(waited);
            if nearly && soon < pause {
                pause = soon;
                soon *= 2;
            }
        }
    }

    /// Ask Heat to stop what it does to stack `name`, when it can: an
    /// update is cancelled and rolled back to the stack's previous state
    /// (`cancel_update`), a create is stopped where it is, the stack left
    /// `CREATE_FAILED` (`cancel_without_rollback`). A delete cannot be
    /// stopped. What was asked, if anything (`None`: nothing to cancel).
    pub async fn cancel(&mut self, name: &str) -> Result<Option<&'static str>, String> {
        let Some(s) = self.locate(name).await? else {
            return Ok(None);
        };
        let action = match s.status.as_str() {
            "UPDATE_IN_PROGRESS" => "cancel_update",
            "CREATE_IN_PROGRESS" => "cancel_without_rollback",
            _ => return Ok(None),
        };
        self.call(
            Method::POST,
            &format!("/stacks/{}/{}/actions", s.name, s.id),
            Some(&json!({ action: null })),
        )
        .await?;
        Ok(Some(action))
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
        let Some(s) = self.locate(name).await? else {
            return Ok(());
        };
        self.call(
            Method::DELETE,
            &format!("/stacks/{}/{}", s.name, s.id),
            None,
        )
        .await?;
        let start = Instant::now();
        let mut pause = self.waiting.first;
        let mut soon = SOON;
        loop {
            let woken = self.pause(pause, &s.id).await;
            self.timing.looks += 1;
            self.timing.last_look = std::time::SystemTime::now();
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
            pause = self.waiting.pause(start.elapsed());
            if woken && soon < pause {
                pause = soon;
                soon *= 2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_ends_with_a_new_stack_event_that_is_not_a_start() {
        let ev = |id: &str, status: &str| StackEvent {
            id: id.into(),
            status: status.into(),
        };
        let previous = ev("e1", "UPDATE_COMPLETE");
        // Before Heat records anything for the new update: the previous
        // update's end is no end of this one, whatever the stack's times say.
        assert!(!ended(Some(&previous), Some("e1")));
        assert!(!ended(Some(&ev("e2", "UPDATE_IN_PROGRESS")), Some("e1")));
        assert!(ended(Some(&ev("e3", "UPDATE_COMPLETE")), Some("e1")));
        assert!(ended(Some(&ev("e3", "UPDATE_FAILED")), Some("e1")));
        assert!(!ended(Some(&ev("e4", "ROLLBACK_IN_PROGRESS")), Some("e1")));
        assert!(ended(Some(&ev("e5", "ROLLBACK_COMPLETE")), Some("e1")));
        // A new stack: no event yet, then its start, then its end.
        assert!(!ended(None, None));
        assert!(!ended(Some(&ev("c1", "CREATE_IN_PROGRESS")), None));
        assert!(ended(Some(&ev("c2", "CREATE_COMPLETE")), None));
    }

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
