//! The cloud side of the core library: a backend trait that the cloud-facing
//! core classes (`HeatStack`, `Agent`, `StatusReporter`, `Resources`, ...) talk
//! through, the local simulator that is the default backend, and the native
//! methods that connect the two.
//!
//! A host (the `vetro run` / `vetro murano test` session) installs a backend
//! for the duration of a run with [`install`]; without one (the conformance
//! batch mode) none of these natives answer and the core library behaves as
//! before.

mod natives;
mod services;
pub mod simulator;

pub use simulator::SimulatedCloud;

use serde_json::Value as Json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

/// One observable step of a deployment.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// `report`, `report-error`, `stack-push`, `stack-delete`, `agent-call`,
    /// `log`, `network` (network explorer), `notify` (instance notifier),
    /// `service` (a service the simulator does not provide).
    pub kind: String,
    /// The object the step concerns (its id), when there is one.
    pub object: Option<String>,
    pub message: String,
}

/// What the engine needs from a cloud. The simulator implements it locally;
/// a real OpenStack backend would implement it against Heat and the agent's
/// message queue.
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
    /// Send an execution plan to the agent of `host`; returns its result.
    fn agent_call(&mut self, host: &str, plan: &Json) -> Result<Json, String>;
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
    /// the same CIDR).
    fn allocate_cidr(&mut self, key: &str) -> Result<String, String> {
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
    fn agent_call(&mut self, host: &str, plan: &Json) -> Result<Json, String> {
        self.borrow_mut().agent_call(host, plan)
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
    fn allocate_cidr(&mut self, key: &str) -> Result<String, String> {
        self.borrow_mut().allocate_cidr(key)
    }
}

/// Receives every event as it happens (the CLI prints them).
pub type EventSink = Box<dyn FnMut(&Event)>;

/// What a running host session provides to the natives.
pub struct Host {
    pub backend: Box<dyn CloudBackend>,
    /// Package name -> package root (for `io.murano.system.Resources`).
    pub package_roots: HashMap<String, PathBuf>,
    pub events: Vec<Event>,
    /// Names of the stacks pushed, in first-push order.
    pub pushed_stacks: Vec<String>,
    /// What `io.murano.system.InstanceNotifier` and `Application.reportDeployed`
    /// were told, in order (`{"event": "track_instance" | "untrack_instance", ...}`).
    pub notifications: Vec<Json>,
    pub sink: Option<EventSink>,
}

impl Host {
    pub fn new(backend: Box<dyn CloudBackend>) -> Host {
        Host {
            backend,
            package_roots: HashMap::new(),
            events: Vec::new(),
            pushed_stacks: Vec::new(),
            notifications: Vec::new(),
            sink: None,
        }
    }

    pub fn emit(&mut self, kind: &str, object: Option<String>, message: impl Into<String>) {
        let e = Event {
            kind: kind.to_string(),
            object,
            message: message.into(),
        };
        if let Some(s) = self.sink.as_mut() {
            s(&e);
        }
        self.events.push(e);
    }
}

thread_local! {
    static ACTIVE: RefCell<Option<Host>> = const { RefCell::new(None) };
}

/// Removes the installed host when dropped and hands it back with [`HostGuard::finish`].
pub struct HostGuard(());

/// Install `host` for the current thread until the guard is finished or dropped.
pub fn install(host: Host) -> HostGuard {
    ACTIVE.with(|a| *a.borrow_mut() = Some(host));
    HostGuard(())
}

impl HostGuard {
    /// Uninstall and return the host (its events and backend state).
    pub fn finish(self) -> Option<Host> {
        let h = ACTIVE.with(|a| a.borrow_mut().take());
        std::mem::forget(self);
        h
    }
}

impl Drop for HostGuard {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.borrow_mut().take());
    }
}

/// Run `f` with the installed host, if any.
pub(crate) fn with_host<R>(f: impl FnOnce(&mut Host) -> R) -> Option<R> {
    ACTIVE.with(|a| a.borrow_mut().as_mut().map(f))
}

fn active() -> bool {
    ACTIVE.with(|a| a.borrow().is_some())
}

pub use natives::native_method;

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
