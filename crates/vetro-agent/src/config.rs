//! murano-agent's configuration file (`muranoagent.conf`): an oslo.config INI
//! file with `[DEFAULT]` (`storage`, `engine_key`, `enable_dynamic_result_queue`)
//! and `[rabbitmq]` (connection, `input_queue`, `result_exchange`,
//! `result_routing_key`). Values continue on indented lines (the engine's
//! public key is written that way) and may be quoted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::AgentError;

/// The `[rabbitmq]` section.
#[derive(Clone, Debug, PartialEq)]
pub struct RabbitConfig {
    pub host: String,
    pub port: u16,
    pub login: String,
    pub password: String,
    pub virtual_host: String,
    pub ssl: bool,
    pub insecure: bool,
    pub ca_certs: Option<PathBuf>,
    pub input_queue: String,
    pub result_exchange: String,
    pub result_routing_key: String,
}

/// The whole configuration, with murano-agent's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentConfig {
    /// Where plans, results and plan files are kept (`/var/murano/plans`).
    pub storage: PathBuf,
    /// PEM public key of the engine: when set, unsigned or badly signed plans
    /// are dropped.
    pub engine_key: Option<String>,
    /// Answer to a plan's `ReplyTo` instead of `result_routing_key`.
    pub dynamic_result_queue: bool,
    pub rabbitmq: RabbitConfig,
}

/// Sections of an INI text: section -> key -> value (keys lower-case).
pub type Sections = HashMap<String, HashMap<String, String>>;

/// Parse INI text the way oslo.config's parser reads it.
pub fn parse_ini(text: &str, file: &str) -> Result<Sections, AgentError> {
    let mut out: Sections = HashMap::new();
    let mut section = "DEFAULT".to_string();
    let mut last: Option<String> = None;
    for (n, raw) in text.lines().enumerate() {
        let bad = |why: &str| AgentError::Config(format!("{file}:{}:1: {why}", n + 1));
        let line = raw.trim_end();
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') || body.starts_with(';') {
            if body.is_empty() {
                last = None;
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            let Some(key) = &last else {
                return Err(bad("an indented line continues no value"));
            };
            let v = out
                .entry(section.clone())
                .or_default()
                .entry(key.clone())
                .or_default();
            v.push('\n');
            v.push_str(body);
            continue;
        }
        if let Some(rest) = body.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| bad("a section header must end with ']'"))?;
            section = name.trim().to_string();
            last = None;
            continue;
        }
        let Some(at) = body.find(['=', ':']) else {
            return Err(bad(&format!("expected 'key = value', found {body:?}")));
        };
        let key = body[..at].trim().to_ascii_lowercase();
        let value = unquote(body[at + 1..].trim());
        out.entry(section.clone())
            .or_default()
            .insert(key.clone(), value);
        last = Some(key);
    }
    Ok(out)
}

fn unquote(v: &str) -> String {
    let b = v.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[0] == b[b.len() - 1] {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

fn parse_bool(v: &str, what: &str) -> Result<bool, AgentError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" | "" => Ok(false),
        _ => Err(AgentError::Config(format!(
            "{what}: {v:?} is not a boolean"
        ))),
    }
}

impl AgentConfig {
    /// Read and check a configuration file.
    pub fn load(path: &Path) -> Result<AgentConfig, AgentError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AgentError::Config(format!("{}: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    pub fn parse(text: &str, file: &str) -> Result<AgentConfig, AgentError> {
        let s = parse_ini(text, file)?;
        let empty = HashMap::new();
        let d = s.get("DEFAULT").unwrap_or(&empty);
        let r = s.get("rabbitmq").unwrap_or(&empty);
        let get = |m: &HashMap<String, String>, k: &str, def: &str| {
            m.get(k).cloned().unwrap_or_else(|| def.to_string())
        };
        let port_text = get(r, "port", "5672");
        let port = port_text.trim().parse::<u16>().map_err(|_| {
            AgentError::Config(format!(
                "{file}: [rabbitmq] port: {port_text:?} is not a port number"
            ))
        })?;
        let input_queue = get(r, "input_queue", "");
        if input_queue.is_empty() {
            return Err(AgentError::Config(format!(
                "{file}: [rabbitmq] input_queue is not set (the queue the engine sends plans to)"
            )));
        }
        let key = get(d, "engine_key", "");
        let ca = get(r, "ca_certs", "");
        Ok(AgentConfig {
            storage: PathBuf::from(get(d, "storage", "/var/murano/plans")),
            engine_key: (!key.trim().is_empty()).then(|| key.trim().to_string()),
            dynamic_result_queue: parse_bool(
                &get(d, "enable_dynamic_result_queue", "false"),
                "enable_dynamic_result_queue",
            )?,
            rabbitmq: RabbitConfig {
                host: get(r, "host", "localhost"),
                port,
                login: get(r, "login", "guest"),
                password: get(r, "password", "guest"),
                virtual_host: get(r, "virtual_host", "/"),
                ssl: parse_bool(&get(r, "ssl", "false"), "[rabbitmq] ssl")?,
                insecure: parse_bool(&get(r, "insecure", "false"), "[rabbitmq] insecure")?,
                ca_certs: (!ca.trim().is_empty()).then(|| PathBuf::from(ca.trim())),
                input_queue,
                result_exchange: get(r, "result_exchange", ""),
                result_routing_key: get(r, "result_routing_key", ""),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONF: &str = "[DEFAULT]\nstorage = /tmp/plans\nengine_key = -----BEGIN RSA PUBLIC KEY-----\n\tAAAA\n\t-----END RSA PUBLIC KEY-----\n\n[rabbitmq]\n# comment\ninput_queue = e1-h2\nresult_routing_key = -execution-results-e1\nhost = 10.0.0.1\nport = 5673\nssl = False\nca_certs = '/etc/murano/certs/ca_certs'\nlogin = murano\npassword = s3cret\nvirtual_host = /\n";

    #[test]
    fn reads_murano_agent_config() {
        let c = AgentConfig::parse(CONF, "a.conf").unwrap();
        assert_eq!(c.storage, PathBuf::from("/tmp/plans"));
        assert_eq!(
            c.engine_key.as_deref(),
            Some("-----BEGIN RSA PUBLIC KEY-----\nAAAA\n-----END RSA PUBLIC KEY-----")
        );
        assert_eq!(c.rabbitmq.input_queue, "e1-h2");
        assert_eq!(c.rabbitmq.port, 5673);
        assert_eq!(c.rabbitmq.login, "murano");
        assert_eq!(
            c.rabbitmq.ca_certs,
            Some(PathBuf::from("/etc/murano/certs/ca_certs"))
        );
        assert!(!c.rabbitmq.ssl);
        assert_eq!(c.rabbitmq.result_exchange, "");
    }

    #[test]
    fn errors_name_the_line() {
        let e =
            AgentConfig::parse("[rabbitmq]\ninput_queue = q\nport = many\n", "x.conf").unwrap_err();
        assert!(e.to_string().contains("port"), "{e}");
        let e = AgentConfig::parse("[rabbitmq\n", "x.conf").unwrap_err();
        assert!(e.to_string().contains("x.conf:1:1"), "{e}");
        let e = AgentConfig::parse("[DEFAULT]\nstorage = /x\n", "x.conf").unwrap_err();
        assert!(e.to_string().contains("input_queue"), "{e}");
    }
}
