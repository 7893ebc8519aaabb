//! What code outside the executor asks of a session: the core and cloud
//! natives, the embedding layers (host runs, deployments, the conformance
//! protocol), the test framework and `check`. The session's parts stay
//! private to `runtime/`; these methods name what a caller needs of them.

use super::limits::{CancelFlag, Watch};
use super::mocks::{Mock, Replaced};
use super::types::{Class, Exc, Object};
use super::walk::Walk;
use super::Rt;
use std::any::Any;
use std::rc::Rc;
use vetro_yaql::value::Render;
use vetro_yaql::Value;

impl Rt {
    // ----- classes and functions -----

    /// The class named `name` (built on first use with its ancestors).
    pub fn class(&self, name: &str) -> Result<Rc<Class>, Exc> {
        self.program.class(name)
    }

    /// A type given as a type reference, an object (its class) or a name
    /// resolved in `scope`'s namespaces.
    pub(crate) fn type_arg(&self, scope: &Class, v: &Value) -> Result<Rc<Class>, Exc> {
        self.program.type_arg(scope, v)
    }

    /// The name of the class declaring the innermost running method.
    pub(crate) fn current_class(&self) -> Option<String> {
        self.frames.current_class()
    }

    /// Whether a method body can call `name` as a YAQL or engine function.
    pub(crate) fn has_engine_function(&self, name: &str) -> bool {
        self.program.yaql().host_context().has_function(name)
    }

    /// Whether a contract expression can call `name` (contract functions and
    /// everything the engine knows).
    pub(crate) fn has_contract_function(&self, name: &str) -> bool {
        self.program.contract_layer().has_function(name)
    }

    // ----- objects -----

    /// The live object with id `id`.
    pub fn object(&self, id: &str) -> Option<Rc<Object>> {
        self.objects.get(id)
    }

    /// Set an object's attribute (`setAttr`): kept with the session, written
    /// out with the model.
    pub(crate) fn set_attribute(&self, o: &Object, name: String, value: Value) {
        self.objects.set_attribute(o, name, value)
    }

    /// An object's attribute (`getAttr`).
    pub(crate) fn attribute(&self, id: &str, name: &str) -> Option<Value> {
        self.objects.attribute(id, name)
    }

    /// Keep a value a test fixture's `trace()` got.
    pub fn trace(&self, v: Value) {
        self.objects.trace(v)
    }

    /// The values `trace()` got since the last call.
    pub fn take_traces(&self) -> Vec<Value> {
        self.objects.take_traces()
    }

    // ----- limits -----

    /// Stop the session at its next step once `flag` is set (from any
    /// thread); the same as giving it in [`super::limits::Limits::cancel`].
    pub fn set_cancel_flag(&self, flag: impl Into<CancelFlag>) {
        self.limits.set_cancel_flag(flag)
    }

    /// What a wait outside the session looks at to stop when the session is
    /// cancelled or out of time or memory (see [`Watch`]).
    pub(crate) fn watch(&self) -> &Watch {
        self.limits.watch()
    }

    /// The session's limit error if a limit has passed now (cancelled, out
    /// of time or memory); `None` while the session may go on.
    pub(crate) fn limit_passed(&self) -> Option<Exc> {
        self.limits
            .watch()
            .passed()
            .map(|_| self.limits.interrupted())
    }

    /// Python `str()` of a value, within what the session may still
    /// allocate.
    pub(crate) fn py_str(&self, v: &Value) -> Result<String, Exc> {
        self.limits.py_str(v)
    }

    /// The text `write` makes, within what the session may still allocate.
    pub(crate) fn render_text(
        &self,
        write: impl FnOnce(&mut Render) -> vetro_yaql::Result<()>,
    ) -> Result<String, Exc> {
        self.limits.text(write)
    }

    /// A walk that writes `what` out under the session's limits (see
    /// [`Walk::writing`]).
    pub(crate) fn writing_walk(&self, what: &'static str) -> Walk<'_> {
        Walk::writing(&self.limits, what)
    }

    // ----- the test framework's mocks -----

    /// Mock `method` of `class` (`inject()`); a later mock of the same
    /// method replaces an earlier one.
    pub(crate) fn inject_mock(&self, class: &str, method: &str, mock: Mock) {
        self.mocks.inject(class, method, mock)
    }

    /// The innermost call an expression mock is replacing.
    pub(crate) fn replaced_call(&self) -> Option<Replaced> {
        self.mocks.replaced()
    }

    // ----- what the embedding layer keeps with the session -----

    /// Keep `state` with the session (replacing what was kept before).
    pub(crate) fn set_embedder_state<T: Any>(&self, state: T) {
        *self.embedder.borrow_mut() = Some(Box::new(state));
    }

    /// Take back what was kept with the session, if it is a `T`.
    pub(crate) fn take_embedder_state<T: Any>(&self) -> Option<T> {
        let slot = self.embedder.borrow_mut().take()?;
        slot.downcast::<T>().ok().map(|s| *s)
    }

    /// Run `f` with what is kept with the session, if it is a `T`.
    pub(crate) fn with_embedder_state<T: Any, R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let mut slot = self.embedder.borrow_mut();
        slot.as_mut().and_then(|s| s.downcast_mut::<T>()).map(f)
    }

    /// Whether a `T` is kept with the session.
    pub(crate) fn has_embedder_state<T: Any>(&self) -> bool {
        self.embedder.borrow().as_ref().is_some_and(|s| s.is::<T>())
    }
}
