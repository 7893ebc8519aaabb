//! What the engine and the agent share on the wire: how to reach the broker,
//! how queues are declared (as Murano declared them, so either side may come
//! first), and how messages carry their id and signature.

use crate::config::RabbitConfig;
use lapin::options::{BasicPublishOptions, QueueDeclareOptions};
use lapin::types::{AMQPValue, FieldTable, LongString, ShortString};
use lapin::uri::{AMQPAuthority, AMQPQueryString, AMQPScheme, AMQPUri, AMQPUserInfo};
use lapin::{BasicProperties, Channel, Connection, ConnectionProperties};

/// A broker address and credentials.
#[derive(Clone, Debug, PartialEq)]
pub struct Broker {
    pub host: String,
    pub port: u16,
    pub login: String,
    pub password: String,
    pub virtual_host: String,
    pub ssl: bool,
}

impl Broker {
    pub fn from_config(r: &RabbitConfig) -> Broker {
        Broker {
            host: r.host.clone(),
            port: r.port,
            login: r.login.clone(),
            password: r.password.clone(),
            virtual_host: r.virtual_host.clone(),
            ssl: r.ssl,
        }
    }

    /// Parse `amqp://user:password@host:port/vhost` (`amqps://` for TLS).
    pub fn from_url(url: &str) -> Result<Broker, String> {
        let uri: AMQPUri = url.parse().map_err(|e| format!("invalid AMQP URL: {e}"))?;
        Ok(Broker {
            ssl: uri.scheme == AMQPScheme::AMQPS,
            host: uri.authority.host,
            port: uri.authority.port,
            login: uri.authority.userinfo.username,
            password: uri.authority.userinfo.password,
            virtual_host: uri.vhost,
        })
    }

    fn uri(&self) -> AMQPUri {
        AMQPUri {
            scheme: if self.ssl {
                AMQPScheme::AMQPS
            } else {
                AMQPScheme::AMQP
            },
            authority: AMQPAuthority {
                userinfo: AMQPUserInfo {
                    username: self.login.clone(),
                    password: self.password.clone(),
                },
                host: self.host.clone(),
                port: self.port,
            },
            vhost: self.virtual_host.clone(),
            query: AMQPQueryString {
                connection_timeout: Some(10_000),
                heartbeat: Some(30),
                ..Default::default()
            },
        }
    }

    /// `host:port/vhost`, for messages (no credentials).
    pub fn describe(&self) -> String {
        format!("{}:{}/{}", self.host, self.port, self.virtual_host)
    }

    pub async fn connect(&self) -> Result<Connection, String> {
        Connection::connect_uri(self.uri(), ConnectionProperties::default())
            .await
            .map_err(|e| format!("cannot connect to RabbitMQ at {}: {e}", self.describe()))
    }
}

/// Declare `queue` as Murano's engine declared agent and result queues:
/// durable, expiring after a day unused, with the (RabbitMQ 2.x) mirroring
/// argument. The broker refuses a second declaration that differs in any of
/// these, so an agent whose queue Murano declared must declare it the same.
pub async fn declare_queue(ch: &Channel, queue: &str) -> Result<(), String> {
    let mut args = FieldTable::default();
    args.insert("x-ha-policy".into(), AMQPValue::LongString("all".into()));
    args.insert("x-expires".into(), AMQPValue::LongInt(86_400_000));
    let options = QueueDeclareOptions {
        durable: true,
        ..QueueDeclareOptions::default()
    };
    ch.queue_declare(queue.into(), options, args)
        .await
        .map(|_| ())
        .map_err(|e| format!("cannot declare queue {queue}: {e}"))
}

/// How a message is published.
#[derive(Clone, Debug, Default)]
pub struct Publish {
    /// The `signature` header, when plans are signed.
    pub signature: Option<Vec<u8>>,
    /// Fail when no queue takes the message (on a channel in confirm mode),
    /// instead of the broker dropping it.
    pub mandatory: bool,
}

/// Publish a JSON body with its message id, as `how` says.
pub async fn publish(
    ch: &Channel,
    exchange: &str,
    routing_key: &str,
    body: &[u8],
    message_id: &str,
    how: Publish,
) -> Result<(), String> {
    let mut props = BasicProperties::default()
        .with_message_id(ShortString::from(message_id))
        .with_content_type("application/json".into());
    if let Some(sig) = how.signature {
        let mut headers = FieldTable::default();
        headers.insert(
            "signature".into(),
            AMQPValue::LongString(LongString::from(sig)),
        );
        props = props.with_headers(headers);
    }
    let confirmation = ch
        .basic_publish(
            exchange.into(),
            routing_key.into(),
            BasicPublishOptions {
                mandatory: how.mandatory,
                ..BasicPublishOptions::default()
            },
            body,
            props,
        )
        .await
        .map_err(|e| format!("cannot publish to {routing_key}: {e}"))?
        .await
        .map_err(|e| format!("publishing to {routing_key} was not confirmed: {e}"))?;
    if confirmation.take_message().is_some() {
        return Err(format!("no queue {routing_key} took the message"));
    }
    Ok(())
}

/// The `signature` header of a message, empty when absent.
pub fn signature_of(props: &BasicProperties) -> Vec<u8> {
    let Some(h) = props.headers() else {
        return Vec::new();
    };
    match h.inner().get(&ShortString::from("signature")) {
        Some(AMQPValue::LongString(s)) => s.as_bytes().to_vec(),
        Some(AMQPValue::ByteArray(b)) => b.as_slice().to_vec(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_brokers() {
        let b = Broker::from_url("amqp://u:p@10.1.2.3:5673/%2f").unwrap();
        assert_eq!(
            (
                b.host.as_str(),
                b.port,
                b.login.as_str(),
                b.virtual_host.as_str()
            ),
            ("10.1.2.3", 5673, "u", "/")
        );
        assert!(!b.ssl);
        assert!(Broker::from_url("amqps://h/v").unwrap().ssl);
        assert!(Broker::from_url("http://x").is_err());
    }
}
