//! The registry of native methods: Rust functions that answer MuranoPL
//! method calls. Each class module (the core library, the cloud library,
//! an embedder's) lists its native classes and their methods in one table;
//! a class looks up where its natives are once, when it is built, and a
//! call asks only the natives of its method's declaring class, by method
//! name. The executor never names the classes itself.

use super::types::{as_type, Exc};
use super::Rt;
use ahash::AHashMap as HashMap;
use std::collections::BTreeSet;
use std::sync::Arc;
use vetro_yaql::Value;

/// One call of a native method.
pub struct NativeCall<'a> {
    pub(crate) rt: &'a Rt,
    /// `$this`: the object, or the class for a static method.
    pub(crate) this: &'a Value,
    /// The receiver as called (a class reference for `ns:Class.method()`).
    pub(super) receiver: &'a Value,
    /// The method called.
    pub method: &'a str,
    pub(super) args: &'a [Value],
    pub(super) kwargs: &'a [(String, Value)],
}

impl NativeCall<'_> {
    /// Argument `i`, given by position or by `name`.
    pub fn arg(&self, i: usize, name: &str) -> Option<&Value> {
        self.args
            .get(i)
            .or_else(|| self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v))
    }

    /// Argument `i` (or `name`), null when it is not given.
    pub(crate) fn value(&self, i: usize, name: &str) -> Value {
        self.arg(i, name).cloned().unwrap_or(Value::Null)
    }

    /// Whether the method was called on the class rather than an object.
    pub fn on_class(&self) -> bool {
        as_type(self.receiver).is_some()
    }
}

/// A handler answers a call with `Some(result)`, or `None` to let the next
/// handler (and then the method's MuranoPL body) answer it.
type NativeFn = Arc<dyn Fn(&NativeCall<'_>) -> Option<Result<Value, Exc>> + Send + Sync>;

/// The body of a native method in a class module's table.
type NativeBody = fn(&NativeCall<'_>) -> Result<Value, Exc>;

/// One row of a class module's table of native methods: `body` answers
/// the calls of each of `methods` of `class`.
pub(crate) struct NativeMethod {
    pub(crate) class: &'static str,
    pub(crate) methods: &'static [&'static str],
    pub(crate) body: NativeBody,
}

/// The native methods of one class.
#[derive(Clone, Default)]
pub(super) struct ClassNatives {
    /// The handlers of each method with one of its own, in the order
    /// registered (those for every method included).
    by_method: HashMap<Box<str>, Vec<NativeFn>>,
    /// The handlers for every method ([`Natives::register`]).
    any: Vec<NativeFn>,
}

impl ClassNatives {
    /// The answer of the first handler of the call's method that answers.
    pub(super) fn call(&self, call: &NativeCall<'_>) -> Option<Result<Value, Exc>> {
        self.by_method
            .get(call.method)
            .unwrap_or(&self.any)
            .iter()
            .find_map(|handler| handler(call))
    }
}

/// Native methods by class. Shared by every session over the same classes.
#[derive(Clone, Default)]
pub struct Natives {
    /// The classes with natives, in the order first registered.
    classes: Vec<ClassNatives>,
    /// Class name -> its place in `classes`.
    index: HashMap<String, usize>,
    /// Native method names with no MuranoPL declaration (they need YAQL
    /// method dispatchers of their own).
    undeclared: BTreeSet<String>,
    /// Native extension methods with no MuranoPL declaration: (class, name).
    extensions: Vec<(String, String)>,
}

impl Natives {
    /// Add a class module's table; its bodies answer while `when` holds
    /// for the call (after the handlers registered before them).
    pub(crate) fn table(&mut self, rows: &[NativeMethod], when: fn(&NativeCall<'_>) -> bool) {
        for row in rows {
            let body = row.body;
            let handler: NativeFn = Arc::new(move |c| when(c).then(|| body(c)));
            for m in row.methods {
                self.method(row.class, m, handler.clone());
            }
        }
    }

    /// Add a handler for method `method` of `class`.
    fn method(&mut self, class: &str, method: &str, handler: NativeFn) {
        let ClassNatives { by_method, any } = self.class_mut(class);
        by_method
            .entry(method.into())
            .or_insert_with(|| any.clone())
            .push(handler);
    }

    /// Add a handler for every method of `class` (after the ones it has);
    /// it tells the methods apart by [`NativeCall::method`].
    pub fn register(
        &mut self,
        class: &str,
        handler: impl Fn(&NativeCall<'_>) -> Option<Result<Value, Exc>> + Send + Sync + 'static,
    ) {
        let handler: NativeFn = Arc::new(handler);
        let c = self.class_mut(class);
        c.any.push(handler.clone());
        for handlers in c.by_method.values_mut() {
            handlers.push(handler.clone());
        }
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

    fn class_mut(&mut self, class: &str) -> &mut ClassNatives {
        let next = self.classes.len();
        let i = *self.index.entry(class.to_string()).or_insert(next);
        if i == next {
            self.classes.push(ClassNatives::default());
        }
        &mut self.classes[i]
    }

    /// Where the native methods of `class` are, if it has any.
    pub(super) fn index_of(&self, class: &str) -> Option<usize> {
        self.index.get(class).copied()
    }

    /// The native methods at `i` ([`Natives::index_of`]).
    pub(super) fn at(&self, i: usize) -> &ClassNatives {
        &self.classes[i]
    }

    pub(super) fn undeclared_methods(&self) -> impl Iterator<Item = &str> {
        self.undeclared.iter().map(String::as_str)
    }

    pub(super) fn extension_names(&self) -> impl Iterator<Item = &str> {
        self.extensions.iter().map(|(_, n)| n.as_str())
    }

    pub(super) fn has_extension(&self, class: &str, name: &str) -> bool {
        self.extensions.iter().any(|(c, n)| c == class && n == name)
    }
}
