//! vetro's OpenStack backend: the engine's `CloudBackend` against a real
//! cloud. Stacks go to Heat (found in Keystone's catalog), execution plans
//! go to the instances' agents over RabbitMQ, as Murano's engine did.
//!
//! [`Options`] is all a host (`vetro run`, `vetro test`, the service's
//! workers) chooses; [`OpenStackCloud::connect`] authenticates and is the
//! backend. The backend's calls are synchronous (the engine's are); it runs
//! its own small async runtime for HTTP and AMQP.

pub mod agents;
pub mod api;
pub mod authtoken;
pub mod clouds;
pub mod environment;
pub mod heat;
pub mod keystone;
pub mod neutron;
pub mod notifications;
pub mod rest;
pub mod stop;

#[cfg(test)]
mod tests;

use agents::AgentBus;
use api::Api;
use clouds::Credentials;
pub use environment::{load as load_environment, HeatEnvironment};
use heat::{Heat, PushTiming, Waiting};
use keystone::Session;
use rest::Retry;
use serde_json::{json, Value as Json};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use stop::unless_interrupted;
use vetro_agent::amqp::Broker;
use vetro_dsl::cloud::{AgentCall, CloudBackend, Interrupt};

/// What selects and configures the OpenStack backend. Its `Debug` form
/// leaves the broker's password and the signing key out.
#[derive(Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Options {
    /// A cloud of `clouds.yaml` (`--os-cloud`, `OS_CLOUD`); else the `OS_*` variables.
    pub cloud: Option<String>,
    /// A Heat environment merged into every push (`--heat-environment`).
    pub heat_environment: Option<HeatEnvironment>,
    /// The broker the engine talks to the agents through (`--amqp-url`).
    pub amqp_url: Option<String>,
    /// The broker address instances are told (default: `amqp_url`'s).
    pub agent_amqp_url: Option<String>,
    /// The broker Heat publishes its notifications to (`--heat-notifications`):
    /// a stack operation's end is noticed when Heat announces it, not at the
    /// next look (which stays the fallback). See [`notifications::Source`].
    pub heat_notifications: Option<String>,
    /// PEM RSA private key: plans are signed and instances told the public key.
    pub signing_key: Option<String>,
    /// Longest wait for one Heat operation (default one hour).
    pub stack_timeout: Option<std::time::Duration>,
    /// Longest wait for an agent's answer (default: what the call asks, one
    /// hour unless it says otherwise).
    pub agent_timeout: Option<std::time::Duration>,
    /// Longest wait for one answer of Keystone, Heat or Neutron (default two
    /// minutes); a request not answered in time is tried again.
    pub request_timeout: Option<std::time::Duration>,
    /// The external network the default router is created on when the
    /// project has none (name or id; default: the first external network).
    pub external_network: Option<String>,
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let broker = |u: &Option<String>| u.as_deref().map(redact_url);
        f.debug_struct("Options")
            .field("cloud", &self.cloud)
            .field("heat_environment", &self.heat_environment.is_some())
            .field("amqp_url", &broker(&self.amqp_url))
            .field("agent_amqp_url", &broker(&self.agent_amqp_url))
            .field("heat_notifications", &broker(&self.heat_notifications))
            .field("signing_key", &self.signing_key.is_some())
            .field("stack_timeout", &self.stack_timeout)
            .field("agent_timeout", &self.agent_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("external_network", &self.external_network)
            .finish()
    }
}

/// `url` without the password of its `user:password@` part.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// A cloud ready to be connected to: the credentials found and the options,
/// as plain data. A host that may read files and the environment resolves it
/// ([`CloudConfig::resolve`]); a process that may read neither (the
/// service's engine processes) connects with what it was handed. Its
/// `Debug` form leaves every secret out.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CloudConfig {
    pub credentials: Credentials,
    pub options: Options,
}

impl CloudConfig {
    /// The credentials `options` select (`clouds.yaml`, `OS_*`), read now.
    pub fn resolve(
        options: Options,
        env: &dyn Fn(&str) -> Option<String>,
        cwd: &std::path::Path,
    ) -> Result<CloudConfig, String> {
        Ok(CloudConfig {
            credentials: credentials(&options, env, cwd)?,
            options,
        })
    }

    /// Authenticate and find Heat.
    pub fn connect(&self) -> Result<OpenStackCloud, String> {
        OpenStackCloud::connect(self.credentials.clone(), &self.options)
    }
}

/// The `clouds.yaml` / `OS_*` credentials `opts` select.
pub fn credentials(
    opts: &Options,
    env: &dyn Fn(&str) -> Option<String>,
    cwd: &std::path::Path,
) -> Result<Credentials, String> {
    match opts
        .cloud
        .clone()
        .or_else(|| env("OS_CLOUD").filter(|c| !c.is_empty()))
    {
        Some(name) => clouds::from_clouds_yaml(&name, env, cwd),
        None => clouds::from_env(env),
    }
}

pub struct OpenStackCloud {
    rt: tokio::runtime::Runtime,
    http: reqwest::Client,
    /// Shared by every call, `&self` ones too (one token for the whole run).
    session: RefCell<Session>,
    heat_endpoint: String,
    /// Neutron's API root, looked up in the catalog when first needed.
    neutron_root: RefCell<Option<String>>,
    network: neutron::Settings,
    /// What the network explorer handed out: the router, CIDRs by key.
    default_router: Option<String>,
    cidrs: HashMap<String, String>,
    retry: Retry,
    environment: HeatEnvironment,
    waiting: Waiting,
    bus: Option<AgentBus>,
    agent_settings: Option<Json>,
    agent_timeout: Option<std::time::Duration>,
    templates: HashMap<String, Json>,
    outputs: HashMap<String, Json>,
    /// What ends a wait for Heat or an agent early (the session's limits).
    interrupt: Interrupt,
    /// The requests of the last call to Heat.
    timing: Cell<PushTiming>,
    /// Heat's notifications, when listened to.
    notifications: Option<notifications::Listener>,
}

/// An HTTP client for OpenStack's APIs: each answer awaited at most `timeout`.
pub fn http_client(timeout: std::time::Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .connect_timeout(std::time::Duration::from_secs(10).min(timeout))
        .timeout(timeout)
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

impl OpenStackCloud {
    /// Authenticate with `creds` and find Heat; connect nothing else yet.
    pub fn connect(creds: Credentials, opts: &Options) -> Result<OpenStackCloud, String> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the async runtime: {e}"))?;
        let http = http_client(
            opts.request_timeout
                .unwrap_or(std::time::Duration::from_secs(120)),
        )?;
        let mut session = Session::new(creds, http.clone());
        let heat_endpoint = rt.block_on(session.endpoint("orchestration"))?;
        let key = match &opts.signing_key {
            Some(pem) => {
                Some(vetro_agent::sign::private_key(pem).map_err(|e| format!("signing key: {e}"))?)
            }
            None => None,
        };
        let (bus, agent_settings) = match &opts.amqp_url {
            Some(url) => {
                let broker = Broker::from_url(url)?;
                let told = match &opts.agent_amqp_url {
                    Some(u) => Broker::from_url(u)?,
                    None => broker.clone(),
                };
                let public = key
                    .as_ref()
                    .map(vetro_agent::sign::public_pem)
                    .unwrap_or_default();
                let settings = json!({"host": told.host, "port": told.port, "login": told.login, "password": told.password,
                    "virtual_host": told.virtual_host, "ssl": told.ssl, "insecure": false, "signingKey": public});
                (Some(AgentBus::new(broker, key)), Some(settings))
            }
            None => (None, None),
        };
        let mut waiting = Waiting::default();
        if let Some(t) = opts.stack_timeout {
            waiting.timeout = t;
        }
        let retry = waiting.retry.clone();
        let notifications = match &opts.heat_notifications {
            Some(url) => Some(notifications::Listener::start(
                &rt,
                notifications::Source::from_url(url)?,
            )),
            None => None,
        };
        Ok(OpenStackCloud {
            rt,
            http,
            session: RefCell::new(session),
            heat_endpoint,
            neutron_root: RefCell::new(None),
            network: neutron::Settings {
                external_network: opts.external_network.clone(),
                ..Default::default()
            },
            default_router: None,
            cidrs: HashMap::new(),
            retry,
            environment: opts
                .heat_environment
                .clone()
                .unwrap_or_else(HeatEnvironment::empty),
            waiting,
            bus,
            agent_settings,
            agent_timeout: opts.agent_timeout,
            templates: HashMap::new(),
            outputs: HashMap::new(),
            interrupt: Interrupt::default(),
            timing: Cell::default(),
            notifications,
        })
    }

    /// Heat's endpoint in use.
    pub fn heat_endpoint(&self) -> &str {
        &self.heat_endpoint
    }

    fn heat<R>(&self, f: impl AsyncFnOnce(&mut Heat<'_>) -> R) -> R {
        let mut session = self.session.borrow_mut();
        let mut h = Heat {
            session: &mut session,
            http: &self.http,
            waiting: &self.waiting,
            endpoint: &self.heat_endpoint,
            timing: PushTiming::default(),
            ended: self.notifications.as_ref().map(|n| n.subscribe()),
        };
        let r = self.rt.block_on(f(&mut h));
        self.timing.set(h.timing);
        r
    }

    /// A call to Heat that waits for it: ended early, with an error naming
    /// `stack`, when the session is cancelled or runs out of time. On a
    /// cancel, Heat is asked to cancel the stack's operation too
    /// ([`Heat::cancel`]); otherwise Heat goes on with it, and the next push
    /// of the stack waits for it.
    fn heat_wait<T>(
        &self,
        stack: &str,
        f: impl AsyncFnOnce(&mut Heat<'_>) -> Result<T, String>,
    ) -> Result<T, String> {
        let what = format!("stack {stack}");
        let r = self.heat(async |h| unless_interrupted(&self.interrupt, &what, f(h)).await);
        if r.is_err() && self.interrupt.cancelled() {
            match self.heat(async |h| h.cancel(stack).await) {
                Ok(Some(asked)) => tracing::info!("stack {stack}: asked Heat to {asked}"),
                Ok(None) => {}
                Err(e) => tracing::warn!("stack {stack}: cannot cancel Heat's operation: {e}"),
            }
        }
        r
    }

    /// Whether Heat's notifications are being received (waits at most
    /// `limit` for the listener to bind its queue; `false` without
    /// `--heat-notifications`).
    pub fn heat_notifications_ready(&self, limit: std::time::Duration) -> bool {
        match &self.notifications {
            Some(n) => self.rt.block_on(n.ready(limit)),
            None => false,
        }
    }

    /// The stack `name` as Heat lists it now (status and times; no outputs).
    pub fn find_stack(&self, name: &str) -> Result<Option<heat::Stack>, String> {
        self.heat(async |h| h.locate(name).await)
    }

    /// How the last call to Heat went on the wire (for measurements).
    pub fn last_heat_timing(&self) -> PushTiming {
        self.timing.get()
    }

    /// A call to Neutron, found in the catalog on first use.
    fn neutron<R>(
        &self,
        f: impl AsyncFnOnce(&mut Api<'_>) -> Result<R, String>,
    ) -> Result<R, String> {
        let mut session = self.session.borrow_mut();
        self.rt.block_on(async {
            let known = self.neutron_root.borrow().clone();
            let root = match known {
                Some(r) => r,
                None => {
                    let r = neutron::api_root(&session.endpoint("network").await?);
                    *self.neutron_root.borrow_mut() = Some(r.clone());
                    r
                }
            };
            let mut api = Api {
                session: &mut session,
                http: &self.http,
                endpoint: &root,
                service: "Neutron",
                retry: &self.retry,
            };
            f(&mut api).await
        })
    }
}

impl CloudBackend for OpenStackCloud {
    fn name(&self) -> &'static str {
        "openstack"
    }

    fn push_stack(
        &mut self,
        stack: &str,
        template: &Json,
        parameters: &Json,
    ) -> Result<Json, String> {
        let env = self.environment.clone();
        let pushed = self.heat_wait(stack, async |h| {
            h.push(stack, template, parameters, &env).await
        })?;
        self.templates.insert(stack.to_string(), template.clone());
        self.outputs
            .insert(stack.to_string(), pushed.outputs.clone());
        Ok(pushed.outputs)
    }

    fn delete_stack(&mut self, stack: &str) -> Result<(), String> {
        self.heat_wait(stack, async |h| h.delete(stack).await)?;
        self.templates.remove(stack);
        self.outputs.remove(stack);
        Ok(())
    }

    fn agent_call(&mut self, call: &AgentCall<'_>, plan: &Json) -> Result<Json, String> {
        let Some(bus) = self.bus.as_mut() else {
            return Err(format!(
                "{}: no message broker for the agents (give --amqp-url or VETRO_AMQP_URL)",
                call.host
            ));
        };
        let mut call = call.clone();
        if let (Some(limit), Some(t)) = (self.agent_timeout, call.timeout) {
            call.timeout = Some(t.min(limit));
        }
        let what = format!("the agent of {}", call.host);
        let waited = unless_interrupted(&self.interrupt, &what, bus.call(&call, plan));
        match self.rt.block_on(waited)? {
            Some(result) => agents::interpret(call.host, &result),
            None => Ok(Json::Null),
        }
    }

    fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.interrupt = interrupt;
    }

    fn agent_queue(&self, env_id: &str, host_id: &str) -> String {
        format!("e{env_id}-h{host_id}").to_lowercase()
    }

    fn result_queue(&self, env_id: &str) -> String {
        format!("-execution-results-{env_id}").to_lowercase()
    }

    fn agent_settings(&self) -> Option<Json> {
        self.agent_settings.clone()
    }

    fn stack_template(&self, stack: &str) -> Option<Json> {
        if let Some(t) = self.templates.get(stack) {
            return Some(t.clone());
        }
        // A stack an earlier run pushed: ask Heat.
        self.heat(async |h| h.template(stack).await).ok().flatten()
    }

    fn list(&self, what: &str) -> Result<Json, String> {
        self.neutron(async |api| neutron::list(api, what, &[]).await)
    }

    fn default_router(&mut self) -> Result<String, String> {
        if let Some(r) = &self.default_router {
            return Ok(r.clone());
        }
        let settings = self.network.clone();
        let router = self.neutron(async |api| {
            let project = api.session.project_id().await?;
            neutron::default_router(api, &project, &settings).await
        })?;
        self.default_router = Some(router.clone());
        Ok(router)
    }

    fn allocate_cidr(&mut self, router: Option<&str>, key: &str) -> Result<String, String> {
        if let Some(c) = self.cidrs.get(key) {
            return Ok(c.clone());
        }
        let mut taken = self.neutron(async |api| neutron::taken_cidrs(api, router).await)?;
        // Handed out earlier in this run but not plugged in yet.
        taken.extend(
            self.cidrs
                .values()
                .filter_map(|c| c.parse::<ipnet::Ipv4Net>().ok()),
        );
        let cidr = neutron::pick_cidr(key, &self.network, &taken)
            .ok_or_else(|| format!("{key}: no free subnet left in {}", self.network.env_range))?
            .to_string();
        self.cidrs.insert(key.to_string(), cidr.clone());
        Ok(cidr)
    }

    fn stack_outputs(&self, stack: &str) -> Option<Json> {
        if let Some(o) = self.outputs.get(stack) {
            return Some(o.clone());
        }
        self.heat(async |h| h.find(stack).await)
            .ok()
            .flatten()
            .map(|s| s.outputs)
    }
}
