//! The cloud backend options: `--backend simulated` (the default) or
//! `--backend openstack` with its credentials, Heat environment and broker,
//! shared by `vetro run`, `vetro test` and the service's workers.

use std::path::PathBuf;
use vetro_dsl::cloud::{AgentResults, CloudBackend};

/// The backends `--backend` names.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The local simulator: nothing leaves this machine.
    Simulated,
    /// Keystone, Heat and the instances' agents over RabbitMQ.
    Openstack,
}

impl BackendKind {
    pub fn name(self) -> &'static str {
        match self {
            BackendKind::Simulated => "simulated",
            BackendKind::Openstack => "openstack",
        }
    }
}

#[derive(clap::Args, Clone)]
pub struct CloudArgs {
    /// Cloud backend: `simulated` (local, nothing leaves this machine) or
    /// `openstack` (Keystone, Heat and the instances' agents over RabbitMQ).
    #[arg(long, value_enum, default_value_t = BackendKind::Simulated)]
    pub backend: BackendKind,
    /// simulated: what the instances' scripts would answer, a YAML or JSON
    /// list of rules `{plan: NAME, script: NAME, result: VALUE}` (or `error:
    /// TEXT`), the first matching a plan answering it; without one an agent
    /// call answers the plan's `Result`, else null.
    #[arg(long, value_name = "FILE")]
    pub agent_results: Option<PathBuf>,
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
    /// openstack: the RabbitMQ broker Heat sends its notifications to (Heat's
    /// [oslo_messaging_notifications] transport_url, as rabbit://... or
    /// amqp://USER:PASSWORD@HOST:PORT/VHOST, optionally ?exchange=heat&topic=notifications;
    /// default: VETRO_HEAT_NOTIFICATIONS): the end of a stack operation is
    /// noticed when Heat announces it instead of at the next look.
    #[arg(long, value_name = "URL")]
    pub heat_notifications: Option<String>,
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
    pub cloud_request_timeout: f64,
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
        match self.task_backend()? {
            vetro_deploy::Backend::Simulated => Ok(Box::new(self.simulator()?)),
            vetro_deploy::Backend::OpenStack { cloud } => Ok(Box::new(cloud.connect()?)),
        }
    }

    /// A new simulator answering agent calls from `--agent-results`.
    pub fn simulator(&self) -> Result<vetro_dsl::cloud::SimulatedCloud, String> {
        let mut cloud = vetro_dsl::cloud::SimulatedCloud::new();
        cloud.set_agent_results(self.agent_results()?);
        Ok(cloud)
    }

    /// The rules of `--agent-results` (none without it).
    pub fn agent_results(&self) -> Result<AgentResults, String> {
        match &self.agent_results {
            Some(path) => AgentResults::load(path).map_err(|e| format!("--agent-results {e}")),
            None => Ok(AgentResults::default()),
        }
    }

    /// The backend these options name, its credentials and files read now
    /// (from clouds.yaml, the OS_* variables, --heat-environment and
    /// --signing-key), not connected: what the service hands each task.
    pub fn task_backend(&self) -> Result<vetro_deploy::Backend, String> {
        match self.backend {
            BackendKind::Simulated => Ok(vetro_deploy::Backend::Simulated),
            BackendKind::Openstack if self.agent_results.is_some() => Err(
                "--agent-results answers the simulator's agents: it needs --backend simulated"
                    .into(),
            ),
            BackendKind::Openstack => {
                let env = |k: &str| std::env::var(k).ok();
                let cwd = std::env::current_dir().unwrap_or_default();
                let cloud = vetro_openstack::CloudConfig::resolve(self.options(&env)?, &env, &cwd)?;
                Ok(vetro_deploy::Backend::OpenStack {
                    cloud: Box::new(cloud),
                })
            }
        }
    }

    fn options(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<vetro_openstack::Options, String> {
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
        let heat_notifications = self
            .heat_notifications
            .clone()
            .or_else(|| env("VETRO_HEAT_NOTIFICATIONS").filter(|u| !u.is_empty()));
        if let Some(url) = &heat_notifications {
            // A typo shows now, not at the first push.
            vetro_openstack::notifications::Source::from_url(url)?;
        }
        Ok(vetro_openstack::Options {
            cloud: self.os_cloud.clone(),
            heat_environment,
            amqp_url: self
                .amqp_url
                .clone()
                .or_else(|| env("VETRO_AMQP_URL").filter(|u| !u.is_empty())),
            agent_amqp_url: self.agent_amqp_url.clone(),
            heat_notifications,
            signing_key,
            stack_timeout: Some(std::time::Duration::from_secs(self.stack_timeout)),
            agent_timeout: self.agent_timeout.map(seconds),
            request_timeout: Some(seconds(self.cloud_request_timeout)),
            external_network: self.external_network.clone(),
        })
    }

    /// How the run's banner names the backend.
    pub fn describe(&self) -> &'static str {
        match self.backend {
            BackendKind::Openstack => {
                "OpenStack: stacks go to Heat, plans to the instances' agents"
            }
            BackendKind::Simulated => "local simulator: nothing leaves this machine",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        cloud: CloudArgs,
    }

    fn parse(args: &[&str]) -> CloudArgs {
        Cli::try_parse_from(std::iter::once("vetro").chain(args.iter().copied()))
            .unwrap()
            .cloud
    }

    #[test]
    fn the_default_is_the_simulator_and_needs_nothing() {
        let a = parse(&[]);
        assert_eq!(a.backend, BackendKind::Simulated);
        assert_eq!(a.task_backend().unwrap(), vetro_deploy::Backend::Simulated);
        let e = Cli::try_parse_from(["vetro", "--backend", "nova"])
            .err()
            .unwrap();
        assert!(
            e.to_string()
                .contains("possible values: simulated, openstack"),
            "{e}"
        );
    }

    #[test]
    fn openstack_options_become_the_tasks_cloud_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let env = dir.path().join("env.yaml");
        std::fs::write(
            &env,
            "resource_registry:\n  OS::Nova::Server: OS::Heat::None\n",
        )
        .unwrap();
        let a = parse(&[
            "--backend",
            "openstack",
            "--os-cloud",
            "lab",
            "--heat-environment",
            env.to_str().unwrap(),
            "--amqp-url",
            "amqp://u:p@broker:5672/%2f",
            "--agent-timeout",
            "2.5",
            "--cloud-request-timeout",
            "7",
            "--stack-timeout",
            "60",
            "--heat-notifications",
            "rabbit://heat:p@control:5672/",
        ]);
        let o = a.options(&|_| None).unwrap();
        assert_eq!(
            o.heat_notifications.as_deref(),
            Some("rabbit://heat:p@control:5672/")
        );
        assert_eq!(o.cloud.as_deref(), Some("lab"));
        assert_eq!(o.amqp_url.as_deref(), Some("amqp://u:p@broker:5672/%2f"));
        assert_eq!(
            o.agent_timeout,
            Some(std::time::Duration::from_millis(2500))
        );
        assert_eq!(o.request_timeout, Some(std::time::Duration::from_secs(7)));
        assert_eq!(o.stack_timeout, Some(std::time::Duration::from_secs(60)));
        let registry = &o.heat_environment.unwrap().environment["resource_registry"];
        assert_eq!(registry["OS::Nova::Server"], "OS::Heat::None");
        // The broker from the environment when the option is not given.
        let b = parse(&["--backend", "openstack"]);
        let vars = |k: &str| (k == "VETRO_AMQP_URL").then(|| "amqp://from-env/".to_string());
        assert_eq!(
            b.options(&vars).unwrap().amqp_url.as_deref(),
            Some("amqp://from-env/")
        );
        let bad = parse(&[
            "--backend",
            "openstack",
            "--heat-notifications",
            "amqp://h/?queue=q",
        ]);
        let e = bad.options(&|_| None).unwrap_err();
        assert!(e.contains("unknown parameter 'queue'"), "{e}");
        // A file that cannot be read is named.
        let c = parse(&[
            "--backend",
            "openstack",
            "--signing-key",
            "/nonexistent/key.pem",
        ]);
        let e = c.options(&|_| None).unwrap_err();
        assert!(e.starts_with("--signing-key /nonexistent/key.pem: "), "{e}");
    }
}
