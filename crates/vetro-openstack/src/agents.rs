//! The engine's side of the agents' message queue, as Murano's engine used it:
//! each instance's queue and the environment's result queue are declared,
//! a plan is published to the instance's queue (signed when a key is
//! configured), and its result is the message on the result queue whose
//! `SourceID` is the plan's `ID`.

use futures_util::StreamExt;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, ConfirmSelectOptions};
use lapin::types::FieldTable;
use lapin::{Channel, Connection, Consumer};
use rsa::RsaPrivateKey;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::time::Duration;
use vetro_agent::amqp::{declare_queue, publish, Broker, Publish};
use vetro_dsl::cloud::AgentCall;

pub struct AgentBus {
    broker: Broker,
    key: Option<RsaPrivateKey>,
    link: Option<(Connection, Channel)>,
    /// One consumer per result queue, kept between calls.
    consumers: HashMap<String, Consumer>,
    declared: Vec<String>,
}

/// Murano's reading of an agent's answer: format 2 `ErrorCode`/`Body`, or
/// format 1 `IsException`/`Result` (the Windows agent).
pub fn interpret(host: &str, result: &Json) -> Result<Json, String> {
    let version = result
        .get("FormatVersion")
        .and_then(Json::as_str)
        .unwrap_or("1.0.0");
    if version.starts_with("1.") {
        let failed = |r: &Json| {
            r.get("IsException")
                .and_then(Json::as_bool)
                .unwrap_or(false)
        };
        let info = |r: &Json| vetro_agent::body::py_str(r.get("Result").unwrap_or(&Json::Null));
        if failed(result) {
            return Err(format!(
                "the agent of {host} failed the execution plan: {}",
                info(result)
            ));
        }
        let last = result
            .get("Result")
            .and_then(Json::as_array)
            .and_then(|a| a.last())
            .cloned();
        return match last {
            Some(v) if failed(&v) => Err(format!(
                "the agent of {host} failed a command: {}",
                info(&v)
            )),
            Some(v) => Ok(v.get("Result").cloned().unwrap_or(Json::Null)),
            None => Ok(Json::Null),
        };
    }
    let code = result.get("ErrorCode").and_then(Json::as_i64).unwrap_or(0);
    if code == 0 {
        return Ok(result.get("Body").cloned().unwrap_or(Json::Null));
    }
    let body = result.get("Body").cloned().unwrap_or(Json::Null);
    let message = body
        .get("Message")
        .and_then(Json::as_str)
        .unwrap_or("execution plan failed");
    let mut text = format!("the agent of {host} answered error {code}: {message}");
    if let Some(info) = body.get("AdditionalInfo").filter(|i| !i.is_null()) {
        if let Some(exit) = info.get("exitCode") {
            text.push_str(&format!(" (exit code {exit})"));
        }
        if let Some(err) = info
            .get("stderr")
            .and_then(Json::as_str)
            .filter(|s| !s.is_empty())
        {
            text.push_str(&format!("; stderr: {err}"));
        }
        if let Some(out) = info
            .get("stdout")
            .and_then(Json::as_str)
            .filter(|s| !s.is_empty())
        {
            text.push_str(&format!("; stdout: {out}"));
        }
    }
    Err(text)
}

impl AgentBus {
    pub fn new(broker: Broker, key: Option<RsaPrivateKey>) -> AgentBus {
        AgentBus {
            broker,
            key,
            link: None,
            consumers: HashMap::new(),
            declared: Vec::new(),
        }
    }

    async fn channel(&mut self) -> Result<Channel, String> {
        if let Some((conn, ch)) = &self.link {
            if conn.status().connected() && ch.status().connected() {
                return Ok(ch.clone());
            }
        }
        self.consumers.clear();
        self.declared.clear();
        let conn = self.broker.connect().await?;
        let ch = conn.create_channel().await.map_err(|e| e.to_string())?;
        ch.confirm_select(ConfirmSelectOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        self.link = Some((conn, ch.clone()));
        Ok(ch)
    }

    async fn declare(&mut self, ch: &Channel, queue: &str) -> Result<(), String> {
        if !self.declared.iter().any(|q| q == queue) {
            declare_queue(ch, queue).await?;
            self.declared.push(queue.to_string());
        }
        Ok(())
    }

    /// A channel with both queues declared and, when the call waits, a
    /// consumer on the result queue.
    async fn subscribe(&mut self, call: &AgentCall<'_>) -> Result<Channel, String> {
        let ch = self.channel().await?;
        self.declare(&ch, call.queue).await?;
        self.declare(&ch, call.result_queue).await?;
        if call.timeout.is_some() && !self.consumers.contains_key(call.result_queue) {
            let tag = format!("vetro-engine-{}", std::process::id());
            let c = ch
                .basic_consume(
                    call.result_queue.into(),
                    tag.as_str().into(),
                    BasicConsumeOptions::default(),
                    FieldTable::default(),
                )
                .await
                .map_err(|e| format!("cannot read results from {}: {e}", call.result_queue))?;
            self.consumers.insert(call.result_queue.to_string(), c);
        }
        Ok(ch)
    }

    async fn send(&mut self, call: &AgentCall<'_>, plan: &Json) -> Result<String, String> {
        let ch = self.subscribe(call).await?;
        let body = plan.to_string();
        let id = plan
            .get("ID")
            .map(vetro_agent::body::py_str)
            .unwrap_or_default();
        let signature = match &self.key {
            Some(k) => Some(vetro_agent::sign::sign(k, call.queue, body.as_bytes())?),
            None => None,
        };
        let how = Publish {
            signature,
            mandatory: false,
        };
        publish(&ch, "", call.queue, body.as_bytes(), &id, how).await?;
        Ok(id)
    }

    /// The result of plan `id` from the result queue's consumer; an error
    /// when the connection is lost first.
    async fn next_result(&mut self, call: &AgentCall<'_>, id: &str) -> Result<Json, String> {
        let consumer = self
            .consumers
            .get_mut(call.result_queue)
            .ok_or("no result consumer")?;
        while let Some(d) = consumer.next().await {
            let d = d.map_err(|e| format!("reading results: {e}"))?;
            let _ = d.ack(BasicAckOptions::default()).await;
            let Ok(result) = serde_json::from_slice::<Json>(&d.data) else {
                continue;
            };
            // Results of other plans (earlier runs' late answers) are dropped, as Murano did.
            if result
                .get("SourceID")
                .map(vetro_agent::body::py_str)
                .as_deref()
                == Some(id)
            {
                return Ok(result);
            }
        }
        Err("the broker closed the result queue".to_string())
    }

    /// Wait for the result of plan `id`. A lost connection is made again
    /// (with backoff) and the result queue read anew: the result, kept by
    /// the broker meanwhile, is not lost.
    async fn wait_result(
        &mut self,
        call: &AgentCall<'_>,
        id: &str,
        lost: &mut Option<String>,
    ) -> Json {
        let mut delay = Duration::from_millis(100);
        loop {
            match self.next_result(call, id).await {
                Ok(result) => return result,
                Err(why) => {
                    tracing::warn!("agent results of {}: {why}; reconnecting", call.host);
                    *lost = Some(why);
                }
            }
            loop {
                self.link = None;
                self.consumers.clear();
                match self.subscribe(call).await {
                    Ok(_) => break,
                    Err(why) => *lost = Some(why),
                }
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
        }
    }

    /// Send `plan`; with a timeout, wait for its result message.
    pub async fn call(
        &mut self,
        call: &AgentCall<'_>,
        plan: &Json,
    ) -> Result<Option<Json>, String> {
        let id = match self.send(call, plan).await {
            Ok(id) => id,
            // The broker went away between calls: once more on a new connection.
            Err(_) => {
                self.link = None;
                self.send(call, plan).await?
            }
        };
        let Some(timeout) = call.timeout else {
            return Ok(None);
        };
        let mut lost = None;
        match tokio::time::timeout(timeout, self.wait_result(call, &id, &mut lost)).await {
            Ok(r) => Ok(Some(r)),
            Err(_) => Err(format!(
                "the agent of {} did not answer within {} s (queue {}){}",
                call.host,
                fmt_secs(timeout),
                call.queue,
                lost.map(|w| format!("; the broker connection was lost: {w}"))
                    .unwrap_or_default()
            )),
        }
    }
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_read_as_murano_read_them() {
        assert_eq!(
            interpret(
                "h",
                &json!({"FormatVersion": "2.0.0", "ErrorCode": 0, "Body": {"a": 1}})
            )
            .unwrap(),
            json!({"a": 1})
        );
        let e = interpret("vm-1", &json!({"FormatVersion": "2.0.0", "ErrorCode": 100,
            "Body": {"Message": "Script deploy returned error code", "AdditionalInfo": {"exitCode": 2, "stderr": "no nginx", "stdout": null}}}))
        .unwrap_err();
        assert_eq!(e, "the agent of vm-1 answered error 100: Script deploy returned error code (exit code 2); stderr: no nginx");
        assert_eq!(
            interpret(
                "h",
                &json!({"IsException": false, "Result": [{"IsException": false, "Result": 5}]})
            )
            .unwrap(),
            json!(5)
        );
        assert!(interpret("h", &json!({"IsException": true, "Result": ["E", "bad"]})).is_err());
    }
}
