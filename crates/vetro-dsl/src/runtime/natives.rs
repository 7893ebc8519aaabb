//! The registry of native methods: Rust functions that answer MuranoPL
//! method calls. The core library, the cloud library and embedders register
//! handlers by class name; the executor asks them before running a method's
//! MuranoPL body and never names the classes itself.

use super::types::{as_type, Class, Exc};
use super::Rt;
use ahash::AHashMap as HashMap;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::Value;

/// One call of a native method.
pub struct NativeCall<'a> {
    pub rt: &'a Rt,
    /// The class the handler is registered for (the method's declaring class).
    pub class: &'a Rc<Class>,
    /// `$this`: the object, or the class for a static method.
    pub this: &'a Value,
    /// The receiver as called (a class reference for `ns:Class.method()`).
    pub receiver: &'a Value,
    pub method: &'a str,
    pub args: &'a [Value],
    pub kwargs: &'a [(String, Value)],
}

impl NativeCall<'_> {
    /// Argument `i`, given by position or by `name`.
    pub fn arg(&self, i: usize, name: &str) -> Option<&Value> {
        self.args
            .get(i)
            .or_else(|| self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v))
    }

    /// Whether the method was called on the class rather than an object.
    pub fn on_class(&self) -> bool {
        as_type(self.receiver).is_some()
    }
}

/// A handler answers a call with `Some(result)`, or `None` to let the next
/// handler (and then the method's MuranoPL body) answer it.
pub type NativeFn = Arc<dyn Fn(&NativeCall<'_>) -> Option<Result<Value, Exc>> + Send + Sync>;

/// Native methods by class. Shared by every session over the same classes.
#[derive(Clone, Default)]
pub struct Natives {
    by_class: HashMap<String, Vec<NativeFn>>,
    /// Native method names with no MuranoPL declaration (they need YAQL
    /// method dispatchers of their own).
    undeclared: BTreeSet<String>,
    /// Native extension methods with no MuranoPL declaration: (class, name).
    extensions: Vec<(String, String)>,
}

impl Natives {
    /// Add a handler for the methods of `class` (after the ones it has).
    pub fn register(
        &mut self,
        class: &str,
        handler: impl Fn(&NativeCall<'_>) -> Option<Result<Value, Exc>> + Send + Sync + 'static,
    ) {
        self.by_class
            .entry(class.to_string())
            .or_default()
            .push(Arc::new(handler));
    }

    /// Declare a native method `name` that no class file declares.
    pub fn declare_method(&mut self, name: &str) {
        self.undeclared.insert(name.to_string());
    }

    /// Declare a native extension method `name` of `class` that no class
    /// file declares.
    pub fn declare_extension(&mut self, class: &str, name: &str) {
        self.extensions.push((class.to_string(), name.to_string()));
    }

    /// The answer of the first handler of the call's class that answers.
    pub fn call(&self, call: &NativeCall<'_>) -> Option<Result<Value, Exc>> {
        self.by_class
            .get(&call.class.name)?
            .iter()
            .find_map(|handler| handler(call))
    }

    pub fn undeclared_methods(&self) -> impl Iterator<Item = &str> {
        self.undeclared.iter().map(String::as_str)
    }

    pub fn extension_names(&self) -> impl Iterator<Item = &str> {
        self.extensions.iter().map(|(_, n)| n.as_str())
    }

    pub fn has_extension(&self, class: &str, name: &str) -> bool {
        self.extensions.iter().any(|(c, n)| c == class && n == name)
    }
}
