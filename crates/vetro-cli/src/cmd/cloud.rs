//! The cloud backend options: `--backend simulated` (the default) or
//! `--backend openstack` with its credentials, Heat environment and broker.

use std::path::PathBuf;
use vetro_dsl::cloud::CloudBackend;

#[derive(clap::Args, Clone)]
pub struct CloudArgs {
    /// Cloud backend: `simulated` (local, nothing leaves this machine) or
    /// `openstack` (Keystone, Heat and the instances' agents over RabbitMQ).
    #[arg(long, default_value = "simulated")]
    pub backend: String,
    /// openstack: the cloud of clouds.yaml to use (default: OS_CLOUD; without
    /// either, the OS_* variables).
    #[arg(long, value_name = "NAME")]
    pub os_cloud: Option<String>,
    /// openstack: a Heat environment file (YAML) merged into every stack push,
    /// e.g. for resource_registry overrides.
    #[arg(long, value_name = "FILE")]
    pub heat_environment: Option<PathBuf>,
    /// openstack: the RabbitMQ broker of the instances' agents,
    /// amqp://USER:PASSWORD@HOST:PORT/VHOST (default: VETRO_AMQP_URL).
    #[arg(long, value_name = "URL")]
    pub amqp_url: Option<String>,
    /// openstack: the broker address instances are given, when it differs
    /// from --amqp-url (e.g. an address on the instances' network).
    #[arg(long, value_name = "URL")]
    pub agent_amqp_url: Option<String>,
    /// openstack: PEM RSA private key; execution plans are signed with it and
    /// instances are given its public key.
    #[arg(long, value_name = "FILE")]
    pub signing_key: Option<PathBuf>,
    /// openstack: longest wait for one Heat operation, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub stack_timeout: u64,
    /// openstack: longest wait for an agent's answer, in seconds (default:
    /// what each call asks, one hour unless it says otherwise).
    #[arg(long, value_name = "SECONDS")]
    pub agent_timeout: Option<f64>,
    /// openstack: longest wait for one answer of Keystone, Heat or Neutron,
    /// in seconds; an unanswered request is tried again, a few times.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub request_timeout: f64,
    /// openstack: the external network (name or id) the default router is
    /// created on when the project has none (default: the first one).
    #[arg(long, value_name = "NETWORK")]
    pub external_network: Option<String>,
}

fn seconds(s: f64) -> std::time::Duration {
    std::time::Duration::from_secs_f64(s.clamp(0.0, 1e9))
}

impl CloudArgs {
    /// The backend these options name, connected.
    pub fn backend(&self) -> Result<Box<dyn CloudBackend>, String> {
        match self.backend.as_str() {
            "openstack" => Ok(Box::new(self.openstack()?)),
            other => vetro_dsl::host::backend_by_name(other).ok_or_else(|| {
                format!("unknown backend {other:?} (available: simulated, openstack)")
            }),
        }
    }

    fn openstack(&self) -> Result<vetro_openstack::OpenStackCloud, String> {
        let env = |k: &str| std::env::var(k).ok();
        let heat_environment = match &self.heat_environment {
            Some(p) => Some(vetro_openstack::load_environment(p)?),
            None => None,
        };
        let signing_key = match &self.signing_key {
            Some(p) => Some(
                std::fs::read_to_string(p)
                    .map_err(|e| format!("--signing-key {}: {e}", p.display()))?,
            ),
            None => None,
        };
        let opts = vetro_openstack::Options {
            cloud: self.os_cloud.clone(),
            heat_environment,
            amqp_url: self
                .amqp_url
                .clone()
                .or_else(|| env("VETRO_AMQP_URL").filter(|u| !u.is_empty())),
            agent_amqp_url: self.agent_amqp_url.clone(),
            signing_key,
            stack_timeout: Some(std::time::Duration::from_secs(self.stack_timeout)),
            agent_timeout: self.agent_timeout.map(seconds),
            request_timeout: Some(seconds(self.request_timeout)),
            external_network: self.external_network.clone(),
        };
        let cwd = std::env::current_dir().unwrap_or_default();
        let creds = vetro_openstack::credentials(&opts, &env, &cwd)?;
        vetro_openstack::OpenStackCloud::connect(creds, &opts)
    }

    /// How the run's banner names the backend.
    pub fn describe(&self) -> &'static str {
        match self.backend.as_str() {
            "openstack" => "OpenStack: stacks go to Heat, plans to the instances' agents",
            _ => "local simulator: nothing leaves this machine",
        }
    }
}
