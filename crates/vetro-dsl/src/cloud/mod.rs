//! The cloud side of the core library: a backend trait that the cloud-facing
//! core classes (`HeatStack`, `Agent`, `StatusReporter`, `Resources`, ...) talk
//! through, the local simulator that is the default backend, and the native
//! methods that connect the two.
//!
//! A host (the `vetro run` / `vetro murano test` session, or an embedder's)
//! attaches a [`Host`] with its backend and event sink to a session with
//! [`attach`]; without one (the conformance batch mode) none of these natives
//! answer and the core library behaves as before.

mod agent_plan;
mod agent_results;
pub mod catalog;
mod interrupt;
mod natives;
mod objects;
mod services;
pub mod simulator;

pub use agent_plan::build as build_agent_plan;
pub use agent_results::AgentResults;
pub use catalog::CloudCatalog;
pub use interrupt::Interrupt;
pub use simulator::SimulatedCloud;

use serde_json::Value as Json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

use crate::runtime::Rt;

/// What kind of step an [`Event`] reports; [`EventKind::as_str`] is the
/// name shown to users and written in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `report`: a status report of the deployment (`StatusReporter.report`).
    Report,
    /// `report-error`: an error report (`StatusReporter.report_error`).
    ReportError,
    /// `stack-push`: a Heat stack created or updated (or the attempt failed).
    StackPush,
    /// `stack-delete`: a Heat stack deleted.
    StackDelete,
    /// `agent-call`: an execution plan sent to an instance's agent.
    AgentCall,
    /// `log`: a line of the library's own progress log (`Logger`).
    Log,
    /// `network`: an answer of the network explorer.
    Network,
    /// `notify`: something the instance notifier or an application reported.
    Notify,
    /// `service`: a service the backend does not provide, or provides empty.
    Service,
}

impl EventKind {
    /// The kind's name (`report`, `stack-push`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Report => "report",
            EventKind::ReportError => "report-error",
            EventKind::StackPush => "stack-push",
            EventKind::StackDelete => "stack-delete",
            EventKind::AgentCall => "agent-call",
            EventKind::Log => "log",
            EventKind::Network => "network",
            EventKind::Notify => "notify",
            EventKind::Service => "service",
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One observable step of a deployment.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What kind of step it was.
    pub kind: EventKind,
    /// The object the step concerns (its id), when there is one.
    pub object: Option<String>,
    /// The step as text (a status report's text, a log line, a stack name).
    pub message: String,
}

/// An execution plan on its way to the agent of one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentCall<'a> {
    /// The instance as users know it (`Class name`), for messages.
    pub host: &'a str,
    /// The instance's agent queue ([`CloudBackend::agent_queue`]).
    pub queue: &'a str,
    /// The environment's result queue ([`CloudBackend::result_queue`]).
    pub result_queue: &'a str,
    /// How long to wait for the result; `None`: send without waiting.
    pub timeout: Option<std::time::Duration>,
}

/// What the engine needs from a cloud. The simulator implements it locally;
/// the OpenStack backend (crate `vetro-openstack`) against Keystone, Heat and
/// the agents' message queue.
pub trait CloudBackend {
    /// Short name shown to the user (`simulated`).
    fn name(&self) -> &'static str;
    /// Create or update stack `stack` with `template` and `parameters`;
    /// returns the stack outputs.
    fn push_stack(
        &mut self,
        stack: &str,
        template: &Json,
        parameters: &Json,
    ) -> Result<Json, String>;
    /// Delete stack `stack`.
    fn delete_stack(&mut self, stack: &str) -> Result<(), String>;
    /// Send an execution plan to an instance's agent; returns its result
    /// (null when the call does not wait).
    fn agent_call(&mut self, call: &AgentCall<'_>, plan: &Json) -> Result<Json, String>;
    /// What ends the backend's waits early (the session cancelled or out of
    /// time), given when the backend is attached to a session. A backend
    /// that waits for the cloud returns an error soon after it fires; one
    /// that never waits ignores it.
    fn set_interrupt(&mut self, _interrupt: Interrupt) {}
    /// The queue the agent of instance `host_id` of environment `env_id` reads.
    fn agent_queue(&self, _env_id: &str, host_id: &str) -> String {
        format!("simulated-agent-{host_id}")
    }
    /// The queue the agents of environment `env_id` answer to.
    fn result_queue(&self, _env_id: &str) -> String {
        "simulated-agent-listener".into()
    }
    /// How instances reach the agents' broker, for their boot configuration:
    /// `{host, port, login, password, virtual_host, ssl, insecure, signingKey}`.
    /// `None` when no agent runs (the simulator): plans are then passed as
    /// written, without the files and ids a real agent needs.
    fn agent_settings(&self) -> Option<Json> {
        None
    }
    /// The last template pushed for `stack`.
    fn stack_template(&self, stack: &str) -> Option<Json>;
    /// The outputs of the last push of `stack`.
    fn stack_outputs(&self, _stack: &str) -> Option<Json> {
        None
    }
    /// Neutron-style listing for the network explorer: `networks`, `subnets`,
    /// `ports`, `routers` or `extensions`.
    fn list(&self, what: &str) -> Result<Json, String> {
        Err(format!(
            "listing {what} is not supported by the {} backend",
            self.name()
        ))
    }
    /// Id of the router new environment networks are uplinked to.
    fn default_router(&mut self) -> Result<String, String> {
        Err(format!("no default router in the {} backend", self.name()))
    }
    /// A free subnet CIDR for the network known by `key` (the same key gets
    /// the same CIDR), not overlapping the subnets plugged into `router`.
    fn allocate_cidr(&mut self, _router: Option<&str>, key: &str) -> Result<String, String> {
        Err(format!(
            "{key}: CIDR allocation is not supported by the {} backend",
            self.name()
        ))
    }
}

/// A backend shared between runs (`Rc<RefCell<..>>`): what one run pushed is
/// what the next run finds, like a real cloud between deployments.
impl<B: CloudBackend> CloudBackend for std::rc::Rc<RefCell<B>> {
    fn name(&self) -> &'static str {
        self.borrow().name()
    }
    fn push_stack(
        &mut self,
        stack: &str,
        template: &Json,
        parameters: &Json,
    ) -> Result<Json, String> {
        self.borrow_mut().push_stack(stack, template, parameters)
    }
    fn delete_stack(&mut self, stack: &str) -> Result<(), String> {
        self.borrow_mut().delete_stack(stack)
    }
    fn agent_call(&mut self, call: &AgentCall<'_>, plan: &Json) -> Result<Json, String> {
        self.borrow_mut().agent_call(call, plan)
    }
    fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.borrow_mut().set_interrupt(interrupt)
    }
    fn agent_queue(&self, env_id: &str, host_id: &str) -> String {
        self.borrow().agent_queue(env_id, host_id)
    }
    fn result_queue(&self, env_id: &str) -> String {
        self.borrow().result_queue(env_id)
    }
    fn agent_settings(&self) -> Option<Json> {
        self.borrow().agent_settings()
    }
    fn stack_template(&self, stack: &str) -> Option<Json> {
        self.borrow().stack_template(stack)
    }
    fn stack_outputs(&self, stack: &str) -> Option<Json> {
        self.borrow().stack_outputs(stack)
    }
    fn list(&self, what: &str) -> Result<Json, String> {
        self.borrow().list(what)
    }
    fn default_router(&mut self) -> Result<String, String> {
        self.borrow_mut().default_router()
    }
    fn allocate_cidr(&mut self, router: Option<&str>, key: &str) -> Result<String, String> {
        self.borrow_mut().allocate_cidr(router, key)
    }
}

/// Receives every event as it happens (the CLI prints them).
pub type EventSink = Box<dyn FnMut(&Event)>;

/// What a running host session provides to the natives.
pub struct Host {
    pub(crate) backend: Box<dyn CloudBackend>,
    /// Package name -> package root (for `io.murano.system.Resources`).
    pub(crate) package_roots: HashMap<String, PathBuf>,
    /// Package name -> files, for packages loaded from memory or archives.
    pub(crate) package_files: HashMap<String, std::sync::Arc<crate::package::PackageFiles>>,
    pub(crate) events: Vec<Event>,
    /// Names of the stacks pushed, in first-push order.
    pub(crate) pushed_stacks: Vec<String>,
    /// What `io.murano.system.InstanceNotifier` and `Application.reportDeployed`
    /// were told, in order (`{"event": "track_instance" | "untrack_instance", ...}`).
    notifications: Vec<Json>,
    pub(crate) sink: Option<EventSink>,
}

impl Host {
    pub(crate) fn new(backend: Box<dyn CloudBackend>) -> Host {
        Host {
            backend,
            package_roots: HashMap::new(),
            package_files: HashMap::new(),
            events: Vec::new(),
            pushed_stacks: Vec::new(),
            notifications: Vec::new(),
            sink: None,
        }
    }

    fn emit(&mut self, kind: EventKind, object: Option<String>, message: impl Into<String>) {
        let e = Event {
            kind,
            object,
            message: message.into(),
        };
        if let Some(s) = self.sink.as_mut() {
            s(&e);
        }
        self.events.push(e);
    }
}

/// Attach `host` to the session `rt` (replacing any earlier one): the cloud
/// natives of that session talk to its backend and report to its sink; the
/// backend's waits end when the session is cancelled or out of time.
pub fn attach(rt: &Rt, mut host: Host) {
    host.backend.set_interrupt(Interrupt::of(rt.watch()));
    rt.set_embedder_state(host);
}

/// Take the host back from the session (its events and backend state).
pub fn detach(rt: &Rt) -> Option<Host> {
    rt.take_embedder_state::<Host>()
}

/// Run `f` with the session's host, if it has one.
pub(crate) fn with_host<R>(rt: &Rt, f: impl FnOnce(&mut Host) -> R) -> Option<R> {
    rt.with_embedder_state(f)
}

fn active(rt: &Rt) -> bool {
    rt.has_embedder_state::<Host>()
}

/// Register the cloud library's native methods (before the core library's:
/// where both answer a method, the cloud's answer wins while a host is attached).
pub(crate) fn register_natives(natives: &mut crate::runtime::natives::Natives) {
    natives.table(natives::NATIVES, natives::answers);
}

/// MuranoPL declarations of the cloud classes (`Environment`, `HeatStack`,
/// instances, networks, volumes, ...), one YAML stream from the files of
/// `library/`. Methods without a Body are native (natives.rs, services.rs).
pub const CLOUD_YAML: &str = concat!(
    include_str!("library/environment.yaml"),
    "---\n",
    include_str!("library/system.yaml"),
    "---\n",
    include_str!("library/networks.yaml"),
    "---\n",
    include_str!("library/instances.yaml"),
    "---\n",
    include_str!("library/volumes.yaml"),
    "---\n",
    include_str!("library/testing.yaml"),
);
