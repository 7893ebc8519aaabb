//! The agent's main loop: consume plans from the input queue, keep each on
//! disk before acknowledging it, run it, keep its result, send the result to
//! the result exchange, and reconnect with backoff when the broker goes away.

use crate::amqp::{declare_queue, publish, signature_of, Broker, Publish};
use crate::config::AgentConfig;
use crate::queue::{PlanQueue, Stored};
use crate::runner::{result_message, run_plan};
use crate::AgentError;
use futures_util::StreamExt;
use lapin::options::{BasicAckOptions, BasicConsumeOptions, BasicQosOptions, ConfirmSelectOptions};
use lapin::types::FieldTable;
use lapin::Channel;
use rsa::RsaPublicKey;
use serde_json::Value as Json;
use std::future::Future;
use std::time::Duration;

pub struct Agent {
    config: AgentConfig,
    key: Option<RsaPublicKey>,
    queue: PlanQueue,
}

impl Agent {
    pub fn new(config: AgentConfig) -> Result<Agent, AgentError> {
        let key = match &config.engine_key {
            Some(pem) => Some(
                crate::sign::public_key(pem)
                    .map_err(|e| AgentError::Config(format!("engine_key: {e}")))?,
            ),
            None => None,
        };
        let queue = PlanQueue::open(&config.storage).map_err(|e| {
            AgentError::Config(format!("storage {}: {e}", config.storage.display()))
        })?;
        Ok(Agent { config, key, queue })
    }

    /// Serve until `stop` completes.
    pub async fn serve(mut self, stop: impl Future<Output = ()>) -> Result<(), AgentError> {
        tokio::pin!(stop);
        let mut delay = Duration::from_millis(500);
        loop {
            tokio::select! {
                _ = &mut stop => return Ok(()),
                r = self.session() => {
                    if let Err(e) = r {
                        tracing::warn!("communication error: {e}; retrying in {delay:?}");
                    }
                }
            }
            tokio::select! {
                _ = &mut stop => return Ok(()),
                _ = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(Duration::from_secs(30));
        }
    }

    async fn session(&mut self) -> Result<(), String> {
        let r = self.config.rabbitmq.clone();
        let conn = Broker::from_config(&r).connect().await?;
        let ch = conn.create_channel().await.map_err(|e| e.to_string())?;
        ch.confirm_select(ConfirmSelectOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        ch.basic_qos(1, BasicQosOptions::default())
            .await
            .map_err(|e| e.to_string())?;
        declare_queue(&ch, &r.input_queue).await?;
        tracing::info!(
            "consuming plans from {} on {}",
            r.input_queue,
            Broker::from_config(&r).describe()
        );
        self.drain(&ch).await?;
        let mut consumer = ch
            .basic_consume(
                r.input_queue.as_str().into(),
                "vetro-agent".into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await
            .map_err(|e| e.to_string())?;
        while let Some(d) = consumer.next().await {
            let d = d.map_err(|e| e.to_string())?;
            let id = d
                .properties
                .message_id()
                .as_ref()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default();
            let reply = d
                .properties
                .reply_to()
                .as_ref()
                .map(|s| s.as_str().to_string());
            self.queue
                .put_plan(&d.data, &signature_of(&d.properties), &id, reply.as_deref())
                .map_err(|e| format!("cannot store the plan: {e}"))?;
            d.ack(BasicAckOptions::default())
                .await
                .map_err(|e| e.to_string())?;
            self.drain(&ch).await?;
        }
        Err("the broker closed the consumer".into())
    }

    /// Send every stored result, run every stored plan.
    async fn drain(&mut self, ch: &Channel) -> Result<(), String> {
        loop {
            if let Some((key, result)) = self.queue.next_result() {
                self.send_result(ch, result).await?;
                self.queue.remove(&key);
                continue;
            }
            let Some(stored) = self.queue.next_plan() else {
                return Ok(());
            };
            match self.prepare(&stored) {
                Ok(plan) => {
                    let storage = self.config.storage.clone();
                    let p = plan.clone();
                    let outcome =
                        tokio::task::spawn_blocking(move || run_plan(&p, &storage, false))
                            .await
                            .map_err(|e| format!("plan runner failed: {e}"))?;
                    let mut result = result_message(&plan, &outcome);
                    if let Some(r) = plan.get("ReplyTo").filter(|r| !r.is_null()) {
                        result["ReplyTo"] = r.clone();
                    }
                    self.queue
                        .put_result(&stored.key, &result)
                        .map_err(|e| format!("cannot store the result: {e}"))?;
                }
                Err(why) => {
                    tracing::warn!("dropping a message: {why}");
                    self.queue.remove(&stored.key);
                }
            }
        }
    }

    /// The plan of a stored message, when it is signed (if a key is set),
    /// a JSON object and newer than the last one.
    fn prepare(&mut self, s: &Stored) -> Result<Json, String> {
        if let Some(key) = &self.key {
            crate::sign::verify(
                key,
                &self.config.rabbitmq.input_queue,
                &s.body,
                &s.signature,
            )?;
        }
        let mut plan: Json =
            serde_json::from_slice(&s.body).map_err(|e| format!("not JSON: {e}"))?;
        let Some(obj) = plan.as_object_mut() else {
            return Err("Message is not a document".into());
        };
        if !self.queue.accept_stamp(&Json::Object(obj.clone())) {
            return Err("Dropping old/duplicate message".into());
        }
        obj.entry("ID")
            .or_insert_with(|| Json::String(s.message_id.clone()));
        obj.entry("ReplyTo")
            .or_insert_with(|| s.reply_to.clone().map_or(Json::Null, Json::String));
        Ok(plan)
    }

    async fn send_result(&self, ch: &Channel, mut result: Json) -> Result<(), String> {
        let r = &self.config.rabbitmq;
        let reply = result.as_object_mut().and_then(|o| o.remove("ReplyTo"));
        let key = match reply.as_ref().and_then(Json::as_str) {
            Some(q) if self.config.dynamic_result_queue => q.to_string(),
            _ => r.result_routing_key.clone(),
        };
        let id = result
            .get("SourceID")
            .map(crate::body::py_str)
            .unwrap_or_default();
        // Mandatory: a result queue may not exist (a broker that lost its
        // queues, a queue expired unused) until the engine declares it
        // again, and the broker would drop the result unrouted; returned
        // instead, it stays stored and is sent again on the next connection.
        publish(
            ch,
            &r.result_exchange,
            &key,
            result.to_string().as_bytes(),
            &id,
            Publish {
                signature: None,
                mandatory: true,
            },
        )
        .await
    }
}
