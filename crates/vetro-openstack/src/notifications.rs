//! Heat's own notice that a stack operation ended: the notifications Heat's
//! engine publishes through oslo.messaging (`[oslo_messaging_notifications]
//! driver = messagingv2`) to its control exchange (`heat`), routing key
//! `TOPIC.PRIORITY` (`notifications.info`, `notifications.error`). A
//! listener binds a queue of its own (exclusive, gone with the connection)
//! to `TOPIC.*` and hands every `orchestration.stack.*.end` / `.error` on to
//! the waits for Heat, which then look at the stack at once instead of at
//! their next poll. Polling stays the rule: a notification only wakes a
//! wait early, so a lost or late one costs nothing but time.

use futures_util::StreamExt;
use lapin::options::{
    BasicConsumeOptions, ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::ExchangeKind;
use serde_json::Value as Json;
use std::time::Duration;
use tokio::sync::{broadcast, watch};
use vetro_agent::amqp::Broker;

/// Where Heat publishes its notifications.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub broker: Broker,
    /// oslo.messaging's `control_exchange` (Heat's default: `heat`).
    pub exchange: String,
    /// `[oslo_messaging_notifications] topics` (default `notifications`).
    pub topic: String,
}

impl Source {
    /// `amqp://user:password@host:port/vhost` or Heat's own transport URL
    /// form `rabbit://user:password@host:port/vhost` (one host), with
    /// optional `?exchange=NAME&topic=NAME`.
    pub fn from_url(url: &str) -> Result<Source, String> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let base = match base.strip_prefix("rabbit://") {
            Some(rest) => format!("amqp://{rest}"),
            None => base.to_string(),
        };
        if base.contains(',') {
            return Err(format!(
                "heat notifications: one broker address, not a list: {}",
                crate::redact_url(&base)
            ));
        }
        let mut broker = Broker::from_url(&base).map_err(|e| format!("heat notifications: {e}"))?;
        if broker.virtual_host.is_empty() {
            // oslo.messaging's `host:port/` is RabbitMQ's default vhost.
            broker.virtual_host = "/".into();
        }
        let mut source = Source {
            broker,
            exchange: "heat".into(),
            topic: "notifications".into(),
        };
        for (k, v) in form_urlencoded::parse(query.as_bytes()) {
            match &*k {
                "exchange" => source.exchange = v.into_owned(),
                "topic" => source.topic = v.into_owned(),
                other => {
                    return Err(format!(
                        "heat notifications: unknown parameter '{other}' (exchange, topic)"
                    ))
                }
            }
        }
        Ok(source)
    }
}

/// A stack operation Heat says has ended (completed or failed).
#[derive(Clone, Debug, PartialEq)]
pub struct StackEnded {
    pub stack_id: String,
    /// `UPDATE_COMPLETE`, `CREATE_FAILED`...
    pub state: String,
}

/// The `orchestration.stack.*.end` / `.error` notification in a message
/// body (oslo.messaging's 2.0 envelope, or the bare 1.0 message).
pub fn stack_ended(body: &[u8]) -> Option<StackEnded> {
    let outer: Json = serde_json::from_slice(body).ok()?;
    let message = match outer.get("oslo.message").and_then(Json::as_str) {
        Some(inner) => serde_json::from_str(inner).ok()?,
        None => outer,
    };
    let event = message.get("event_type")?.as_str()?;
    let rest = event.strip_prefix("orchestration.stack.")?;
    if !(rest.ends_with(".end") || rest.ends_with(".error")) {
        return None;
    }
    let payload = message.get("payload")?;
    Some(StackEnded {
        stack_id: payload.get("stack_identity")?.as_str()?.to_string(),
        state: payload
            .get("state")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

/// The running listener: its stream of ended operations, and whether its
/// queue is bound now.
pub struct Listener {
    ended: broadcast::Sender<StackEnded>,
    bound: watch::Receiver<bool>,
}

impl Listener {
    /// Listen on `rt` until the runtime stops, connecting again (with
    /// backoff) whenever the broker is away or Heat has not declared its
    /// exchange yet (it does with its first notification; the listener never
    /// declares it, so that Heat's own declaration cannot be refused).
    pub fn start(rt: &tokio::runtime::Runtime, source: Source) -> Listener {
        let (ended, _) = broadcast::channel(256);
        let (bound_tx, bound) = watch::channel(false);
        rt.spawn(listen(source, ended.clone(), bound_tx));
        Listener { ended, bound }
    }

    /// Operations that end from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<StackEnded> {
        self.ended.subscribe()
    }

    /// Wait (at most `limit`) until the listener's queue is bound.
    pub async fn ready(&self, limit: Duration) -> bool {
        let mut bound = self.bound.clone();
        tokio::time::timeout(limit, bound.wait_for(|b| *b))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

async fn listen(source: Source, ended: broadcast::Sender<StackEnded>, bound: watch::Sender<bool>) {
    let mut delay = Duration::from_millis(500);
    loop {
        let why = match session(&source, &ended, &bound).await {
            Ok(()) => "the broker closed the notification queue".to_string(),
            Err(why) => why,
        };
        let was_bound = bound.send_replace(false);
        if was_bound {
            delay = Duration::from_millis(500);
        }
        tracing::debug!("heat notifications: {why}; trying again in {delay:?}");
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(Duration::from_secs(10));
    }
}

/// One connection: bind, then pass on what arrives until it closes.
async fn session(
    source: &Source,
    ended: &broadcast::Sender<StackEnded>,
    bound: &watch::Sender<bool>,
) -> Result<(), String> {
    let conn = source.broker.connect().await?;
    let ch = conn.create_channel().await.map_err(|e| e.to_string())?;
    let passive = ExchangeDeclareOptions {
        passive: true,
        ..Default::default()
    };
    ch.exchange_declare(
        source.exchange.as_str().into(),
        ExchangeKind::Topic,
        passive,
        FieldTable::default(),
    )
    .await
    .map_err(|e| format!("exchange {} not there yet: {e}", source.exchange))?;
    let own = QueueDeclareOptions {
        exclusive: true,
        auto_delete: true,
        ..Default::default()
    };
    let queue = ch
        .queue_declare("".into(), own, FieldTable::default())
        .await
        .map_err(|e| e.to_string())?;
    let key = format!("{}.*", source.topic);
    ch.queue_bind(
        queue.name().clone(),
        source.exchange.as_str().into(),
        key.as_str().into(),
        QueueBindOptions::default(),
        FieldTable::default(),
    )
    .await
    .map_err(|e| e.to_string())?;
    let no_ack = BasicConsumeOptions {
        no_ack: true,
        ..Default::default()
    };
    let mut consumer = ch
        .basic_consume(
            queue.name().clone(),
            "vetro-heat-notifications".into(),
            no_ack,
            FieldTable::default(),
        )
        .await
        .map_err(|e| e.to_string())?;
    bound.send_replace(true);
    while let Some(d) = consumer.next().await {
        let d = d.map_err(|e| e.to_string())?;
        if let Some(end) = stack_ended(&d.data) {
            // Nobody waiting is no error.
            let _ = ended.send(end);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn heats_end_and_error_notifications_are_read_from_either_envelope() {
        let inner = json!({"message_id": "m", "publisher_id": "orchestration.host",
            "event_type": "orchestration.stack.update.end", "priority": "INFO",
            "payload": {"stack_identity": "s-1", "stack_name": "e", "state": "UPDATE_COMPLETE"},
            "timestamp": "2026-12-05 22:09:44.135678"});
        let v2 = json!({"oslo.version": "2.0", "oslo.message": inner.to_string()});
        let want = StackEnded {
            stack_id: "s-1".into(),
            state: "UPDATE_COMPLETE".into(),
        };
        assert_eq!(stack_ended(v2.to_string().as_bytes()), Some(want.clone()));
        assert_eq!(stack_ended(inner.to_string().as_bytes()), Some(want));
        let mut failed = inner.clone();
        failed["event_type"] = json!("orchestration.stack.create.error");
        failed["payload"]["state"] = json!("CREATE_FAILED");
        assert_eq!(
            stack_ended(failed.to_string().as_bytes()).unwrap().state,
            "CREATE_FAILED"
        );
        // Starts, other services' notifications and other bodies: nothing.
        let mut start = inner.clone();
        start["event_type"] = json!("orchestration.stack.update.start");
        assert_eq!(stack_ended(start.to_string().as_bytes()), None);
        let mut nova = inner;
        nova["event_type"] = json!("compute.instance.create.end");
        assert_eq!(stack_ended(nova.to_string().as_bytes()), None);
        assert_eq!(stack_ended(b"not json"), None);
    }

    #[test]
    fn the_source_takes_amqp_or_heats_rabbit_urls_and_names_exchange_and_topic() {
        let s = Source::from_url("rabbit://u:p@mq:5673/").unwrap();
        assert_eq!((s.broker.host.as_str(), s.broker.port), ("mq", 5673));
        assert_eq!(s.broker.virtual_host, "/");
        assert_eq!(
            (s.exchange.as_str(), s.topic.as_str()),
            ("heat", "notifications")
        );
        let s = Source::from_url("amqp://u:p@mq/%2f?exchange=orch&topic=heat_notes").unwrap();
        assert_eq!(
            (s.exchange.as_str(), s.topic.as_str()),
            ("orch", "heat_notes")
        );
        assert_eq!(s.broker.virtual_host, "/");
        assert!(Source::from_url("amqp://u:p@mq/?queue=x")
            .unwrap_err()
            .contains("unknown parameter 'queue'"));
        let e = Source::from_url("rabbit://u:secret@a:5672,u:secret@b:5672/").unwrap_err();
        assert!(
            e.contains("one broker address") && !e.contains("secret"),
            "{e}"
        );
    }
}
