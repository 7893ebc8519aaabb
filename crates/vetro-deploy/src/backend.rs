//! The cloud a task deploys to, as the service was configured: the local
//! simulator (its state stored with the environment between tasks) or an
//! OpenStack cloud (its state is the cloud itself). Plain data, so that it
//! travels with the task to an engine process, which reads no file and no
//! environment variable to find its credentials.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::cell::RefCell;
use std::rc::Rc;
use vetro_dsl::cloud::{CloudBackend, SimulatedCloud};
use vetro_openstack::CloudConfig;

/// Which cloud a task's engine talks to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Backend {
    /// The local simulator: nothing leaves the machine.
    #[default]
    Simulated,
    /// Keystone, Heat and the instances' agents over RabbitMQ.
    #[serde(rename = "openstack")]
    OpenStack { cloud: Box<CloudConfig> },
}

impl Backend {
    /// Whether the engine must reach other machines (an engine process is
    /// then allowed Internet sockets; the simulator needs none).
    pub fn needs_network(&self) -> bool {
        match self {
            Backend::Simulated => false,
            Backend::OpenStack { .. } => true,
        }
    }

    /// The name users know it by (`--backend`).
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Simulated => "simulated",
            Backend::OpenStack { .. } => "openstack",
        }
    }
}

/// A backend ready for one engine session.
pub(crate) struct Opened {
    pub backend: Box<dyn CloudBackend>,
    /// The simulator, kept to save its state after the session.
    pub simulator: Option<Rc<RefCell<SimulatedCloud>>>,
}

/// Connects `backend`; the simulator starts from `state` (the environment's
/// stored one) when there is one.
pub(crate) fn open(backend: &Backend, state: Option<&Json>) -> Result<Opened, String> {
    match backend {
        Backend::Simulated => {
            let cloud = match state {
                Some(s) if !s.is_null() => SimulatedCloud::restore(s)
                    .map_err(|e| format!("the stored cloud state does not load: {e}"))?,
                _ => SimulatedCloud::new(),
            };
            let cloud = Rc::new(RefCell::new(cloud));
            Ok(Opened {
                backend: Box::new(cloud.clone()),
                simulator: Some(cloud),
            })
        }
        Backend::OpenStack { cloud } => {
            let connected = cloud
                .connect()
                .map_err(|e| format!("cannot connect to the OpenStack cloud: {e}"))?;
            Ok(Opened {
                backend: Box::new(connected),
                simulator: None,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use vetro_openstack::clouds::{Credentials, Method};

    /// A Keystone that refuses every request with 401, on a free port.
    fn refusing_keystone() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for mut conn in listener.incoming().flatten() {
                let mut buf = [0u8; 4096];
                let _ = conn.read(&mut buf);
                let body = r#"{"error": {"code": 401, "message": "The request you have made requires authentication."}}"#;
                let _ = write!(
                    conn,
                    "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        format!("http://{addr}/v3")
    }

    fn openstack(auth_url: String) -> Backend {
        Backend::OpenStack {
            cloud: Box::new(CloudConfig {
                credentials: Credentials {
                    source: "OS_* variables".into(),
                    auth_url,
                    method: Method::Token("t".into()),
                    project: None,
                    trust_id: None,
                    region: None,
                    interface: "public".into(),
                    endpoint_overrides: Default::default(),
                },
                options: Default::default(),
            }),
        }
    }

    #[test]
    fn only_a_cloud_reached_over_the_network_gets_the_network() {
        assert!(!Backend::Simulated.needs_network());
        assert!(openstack("http://k/v3".into()).needs_network());
        assert_eq!(openstack("http://k/v3".into()).name(), "openstack");
    }

    #[test]
    fn the_backend_travels_as_plain_data() {
        let b = openstack("http://k/v3".into());
        let text = serde_json::to_string(&b).unwrap();
        assert!(text.starts_with(r#"{"kind":"openstack","#), "{text}");
        assert_eq!(serde_json::from_str::<Backend>(&text).unwrap(), b);
        let none: Backend = serde_json::from_str(r#"{"kind":"simulated"}"#).unwrap();
        assert_eq!(none, Backend::Simulated);
    }

    #[test]
    fn the_simulator_starts_from_the_stored_state() {
        let mut cloud = SimulatedCloud::new();
        cloud
            .push_stack("s", &serde_json::json!({"resources": {}}), &Json::Null)
            .unwrap();
        let opened = open(&Backend::Simulated, Some(&cloud.save())).unwrap();
        assert!(opened.backend.stack_template("s").is_some());
        assert!(opened.simulator.is_some());
        let e = open(&Backend::Simulated, Some(&serde_json::json!(7)))
            .err()
            .unwrap();
        assert!(e.starts_with("the stored cloud state does not load"), "{e}");
    }

    #[test]
    fn a_cloud_that_refuses_the_credentials_is_a_clear_error() {
        let e = open(&openstack(refusing_keystone()), None).err().unwrap();
        assert!(
            e.starts_with("cannot connect to the OpenStack cloud: "),
            "{e}"
        );
        assert!(e.contains("401"), "{e}");
    }
}
