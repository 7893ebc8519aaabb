//! The cloud configuration handed to engine processes.

use super::*;
use clouds::{Method, Named};

fn config() -> CloudConfig {
    CloudConfig {
        credentials: Credentials {
            source: "cloud \"lab\" of clouds.yaml".into(),
            auth_url: "http://keystone:5000/v3".into(),
            method: Method::Password {
                user: Named {
                    name: Some("alice".into()),
                    domain_name: Some("Default".into()),
                    ..Named::default()
                },
                password: "keystone-secret".into(),
            },
            project: None,
            trust_id: None,
            region: Some("RegionOne".into()),
            interface: "public".into(),
            endpoint_overrides: Default::default(),
        },
        options: Options {
            amqp_url: Some("amqp://murano:broker-secret@10.0.0.5:5672/%2f".into()),
            signing_key: Some("-----BEGIN PRIVATE KEY-----\nkey-secret".into()),
            heat_environment: Some(HeatEnvironment::empty()),
            stack_timeout: Some(std::time::Duration::from_millis(1500)),
            ..Options::default()
        },
    }
}

#[test]
fn a_config_crosses_a_process_boundary_whole() {
    let c = config();
    let text = serde_json::to_string(&c).unwrap();
    let back: CloudConfig = serde_json::from_str(&text).unwrap();
    assert_eq!(back, c);
}

#[test]
fn no_secret_shows_in_the_debug_form() {
    let shown = format!("{:?}", config());
    for secret in ["keystone-secret", "broker-secret", "key-secret"] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert!(
        shown.contains("amqp://murano:***@10.0.0.5:5672/%2f"),
        "{shown}"
    );
    assert!(shown.contains("alice"), "{shown}");
}

#[test]
fn urls_lose_only_their_password() {
    assert_eq!(redact_url("amqp://u:p@h:1/v"), "amqp://u:***@h:1/v");
    assert_eq!(redact_url("amqp://u@h/"), "amqp://u@h/");
    assert_eq!(redact_url("amqp://h/"), "amqp://h/");
}
