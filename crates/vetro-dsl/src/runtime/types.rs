//! Runtime entities: classes, objects, the YAQL host-object handles for them,
//! and MuranoPL exceptions.

use crate::syntax::{ClassDef, MethodDef, PropertyDef};
use ahash::AHashMap as HashMap;
use indexmap::IndexMap;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::sync::Arc;
use vetro_yaql::{HostObject, Value};

/// The package a class came from.
#[derive(Debug)]
pub struct PkgInfo {
    pub(crate) name: String,
    pub(super) version: String,
    pub(super) format: String,
}

impl PkgInfo {
    /// Runtime version 1.0 or 1.1 (legacy yaql context, `type()` gives names).
    pub(super) fn legacy(&self) -> bool {
        matches!(self.format.as_str(), "1.0" | "1.1")
    }
}

/// A class with its resolved parents.
pub struct Class {
    /// The class's full name.
    pub name: String,
    pub(crate) def: Arc<ClassDef>,
    pub(super) parents: Vec<Rc<Class>>,
    pub(crate) pkg: std::sync::Arc<PkgInfo>,
    /// Breadth-first ancestors (without the class itself), each once.
    pub(super) ancestors: Vec<Rc<Class>>,
    /// The class's type value while one is alive (weak: a strong handle
    /// would point back at the class and keep both alive forever).
    pub(super) handle: RefCell<Weak<TypeHandle>>,
    /// Method resolutions by name, made on first call.
    pub(super) resolved: MethodTable,
    /// Where the class's native methods are in its program's natives
    /// registry (`Natives::index_of`), looked up when it is built.
    pub(super) natives: Option<usize>,
}

/// The most-derived definitions of each method name called on a class, as
/// positions in its [`Class::lineage`] (not `Rc`s: the class would hold
/// itself), resolved once per class and name.
#[derive(Default)]
pub(super) struct MethodTable(RefCell<HashMap<Box<str>, Candidates>>);

/// The most-derived definitions of a method: (lineage position, method).
type Candidates = Rc<[(usize, Arc<MethodDef>)]>;

impl Class {
    pub(crate) fn is_a(&self, name: &str) -> bool {
        self.name == name || self.ancestors.iter().any(|c| c.name == name)
    }

    /// The class itself, then its breadth-first ancestors.
    pub(crate) fn mro(self: &Rc<Self>) -> Vec<Rc<Class>> {
        self.lineage().cloned().collect()
    }

    /// [`Class::mro`] without building it.
    pub(super) fn lineage(self: &Rc<Self>) -> impl Iterator<Item = &Rc<Class>> {
        std::iter::once(self).chain(self.ancestors.iter())
    }

    /// The class at `i` in its lineage (0: itself).
    pub(super) fn lineage_at(self: &Rc<Self>, i: usize) -> &Rc<Class> {
        if i == 0 {
            self
        } else {
            &self.ancestors[i - 1]
        }
    }

    /// The most-derived definitions of a method over all inheritance paths
    /// (more than one: the name is ambiguous), resolved once per name.
    pub(super) fn methods_named(self: &Rc<Self>, name: &str) -> Candidates {
        if let Some(c) = self.resolved.0.borrow().get(name) {
            return c.clone();
        }
        let defining: Vec<(usize, &Rc<Class>)> = self
            .lineage()
            .enumerate()
            .filter(|(_, c)| c.def.methods.contains_key(name))
            .collect();
        let found: Candidates = defining
            .iter()
            .filter(|(_, c)| {
                !defining
                    .iter()
                    .any(|(_, d)| d.name != c.name && d.is_a(&c.name))
            })
            .map(|(i, c)| (*i, c.def.methods[name].clone()))
            .collect();
        self.resolved
            .0
            .borrow_mut()
            .insert(name.into(), found.clone());
        found
    }

    /// `self` and `other` are in one line of inheritance.
    pub(super) fn compatible(&self, other: &Class) -> bool {
        self.is_a(&other.name) || other.is_a(&self.name)
    }

    /// Most-derived definitions of a method over all inheritance paths.
    pub fn find_methods(self: &Rc<Self>, name: &str) -> Vec<(Rc<Class>, Arc<MethodDef>)> {
        self.methods_named(name)
            .iter()
            .map(|(i, m)| (self.lineage_at(*i).clone(), m.clone()))
            .collect()
    }

    /// The most derived declaration of a property.
    pub(super) fn first_property(
        self: &Rc<Self>,
        name: &str,
    ) -> Option<(&Rc<Class>, &Arc<PropertyDef>)> {
        self.lineage()
            .find_map(|c| c.def.properties.get(name).map(|p| (c, p)))
    }

    /// The class as a value; every live copy is the same value.
    pub fn type_value(self: &Rc<Self>) -> Value {
        if let Some(h) = self.handle.borrow().upgrade() {
            return Value::Object(h);
        }
        let h = Rc::new(TypeHandle {
            class: self.clone(),
        });
        *self.handle.borrow_mut() = Rc::downgrade(&h);
        Value::Object(h)
    }

    /// `Name/version@package` as the serializer writes it.
    pub(super) fn versioned_name(&self) -> String {
        format!("{}/{}@{}", self.name, self.pkg.version, self.pkg.name)
    }
}

/// A MuranoPL object.
pub struct Object {
    pub(crate) id: String,
    /// The object's class.
    pub class: Rc<Class>,
    pub(crate) owner: RefCell<Option<Rc<Object>>>,
    pub(super) name: RefCell<Value>,
    pub(super) metadata: RefCell<Value>,
    /// Declared property values, one per name.
    pub(crate) props: RefCell<IndexMap<String, Value, ahash::RandomState>>,
    /// Undeclared ("private") values, per (class part, name).
    pub(super) private: RefCell<HashMap<(String, String), Value>>,
    pub(crate) destroyed: Cell<bool>,
    /// Destruction is pending (collected, `.destroy` not run yet).
    pub(crate) doomed: Cell<bool>,
    pub(super) initialized: Cell<bool>,
    /// Properties and `.init` are running: every usage is writable.
    pub(super) initializing: Cell<bool>,
    /// (subscriber, handler) destruction subscriptions.
    pub(crate) subscribers: RefCell<Vec<(Rc<Object>, Option<String>)>>,
    /// The object's value while one is alive (weak, as for classes: the
    /// handle points at the object).
    handle: RefCell<Weak<ObjHandle>>,
    /// When construction (properties and `.init`) finished, as a session-wide
    /// sequence number; 0 while it has not.
    pub(super) settled: Cell<u64>,
}

impl Object {
    /// `outer` holds this object, directly or through its owners.
    pub(super) fn owned_by(&self, outer: &Rc<Object>) -> bool {
        let mut at = self.owner.borrow().clone();
        while let Some(o) = at {
            if Rc::ptr_eq(&o, outer) {
                return true;
            }
            at = o.owner.borrow().clone();
        }
        false
    }

    pub(super) fn new(id: String, class: Rc<Class>, owner: Option<Rc<Object>>) -> Rc<Object> {
        Rc::new(Object {
            id,
            class,
            owner: RefCell::new(owner),
            name: RefCell::new(Value::Null),
            metadata: RefCell::new(Value::Null),
            props: RefCell::new(IndexMap::default()),
            private: RefCell::new(HashMap::new()),
            destroyed: Cell::new(false),
            doomed: Cell::new(false),
            initialized: Cell::new(false),
            initializing: Cell::new(false),
            subscribers: RefCell::new(Vec::new()),
            handle: RefCell::new(Weak::new()),
            settled: Cell::new(0),
        })
    }

    /// The object as a value. Values compare by handle, so every live copy
    /// is the same handle; once none is left, a new one is made.
    pub fn value(self: &Rc<Self>) -> Value {
        if let Some(h) = self.handle.borrow().upgrade() {
            return Value::Object(h);
        }
        let h = Rc::new(ObjHandle {
            obj: self.clone(),
            cast: None,
        });
        *self.handle.borrow_mut() = Rc::downgrade(&h);
        Value::Object(h)
    }

    /// A view of the object as one of its classes (method lookup starts there).
    pub(super) fn cast_value(self: &Rc<Self>, class: Rc<Class>) -> Value {
        if class.name == self.class.name {
            return self.value();
        }
        Value::Object(Rc::new(ObjHandle {
            obj: self.clone(),
            cast: Some(class),
        }))
    }
}

/// YAQL handle of an object.
struct ObjHandle {
    obj: Rc<Object>,
    cast: Option<Rc<Class>>,
}

impl HostObject for ObjHandle {
    fn type_name(&self) -> &str {
        &self.obj.class.name
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_str(&self) -> String {
        self.obj.id.clone()
    }
}

/// YAQL handle of a class (a type reference).
pub(super) struct TypeHandle {
    class: Rc<Class>,
}

impl HostObject for TypeHandle {
    fn type_name(&self) -> &str {
        &self.class.name
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_str(&self) -> String {
        self.class.name.clone()
    }
}

/// The object behind a value, if it is one.
pub fn as_object(v: &Value) -> Option<(Rc<Object>, Option<Rc<Class>>)> {
    match v {
        Value::Object(h) => h
            .as_any()
            .downcast_ref::<ObjHandle>()
            .map(|h| (h.obj.clone(), h.cast.clone())),
        _ => None,
    }
}

pub(crate) fn as_type(v: &Value) -> Option<Rc<Class>> {
    match v {
        Value::Object(h) => h
            .as_any()
            .downcast_ref::<TypeHandle>()
            .map(|h| h.class.clone()),
        _ => None,
    }
}

/// One frame of a MuranoPL stack trace.
#[derive(Clone, Debug)]
pub struct Frame {
    /// The statement or expression that was running.
    pub instruction: String,
    /// The class file.
    pub file: String,
    /// Line in the file (1-based).
    pub line: u32,
    /// Column in the file (1-based).
    pub column: u32,
    /// The method's name.
    pub method: String,
    /// The declaring class's full name.
    pub class: String,
}

/// An engine (native) error.
#[derive(Debug)]
pub struct NativeErr {
    /// The error's class.
    pub class: ExcClass,
    /// The error's message.
    pub message: String,
}

/// The class of an engine (native) error: one the engine raises itself, or
/// one named by a library or an embedder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExcClass {
    /// A class the engine raises itself.
    Engine(EngineExc),
    /// A class named by a library or an embedder.
    Named {
        /// The module defining it (its qualified name's prefix).
        module: String,
        /// The class's own name.
        name: String,
    },
}

impl ExcClass {
    /// `module.Name`, as MuranoPL code catches it; the class of a known
    /// module and name is the [`EngineExc`] it names.
    fn new(module: &str, name: &str) -> ExcClass {
        match EngineExc::ALL
            .iter()
            .find(|e| e.name() == name && e.module() == module)
        {
            Some(e) => ExcClass::Engine(*e),
            None => ExcClass::Named {
                module: module.to_string(),
                name: name.to_string(),
            },
        }
    }

    /// Short class name (`ContractViolationException`, `ZeroDivisionError`).
    pub fn name(&self) -> &str {
        match self {
            ExcClass::Engine(e) => e.name(),
            ExcClass::Named { name, .. } => name,
        }
    }

    /// Qualified MuranoPL name (`murano.dsl.exceptions.X`, builtins bare).
    fn qualified(&self) -> String {
        let (module, name) = match self {
            ExcClass::Engine(e) => (e.module(), e.name()),
            ExcClass::Named { module, name } => (module.as_str(), name.as_str()),
        };
        if module.is_empty() {
            name.to_string()
        } else {
            format!("{module}.{name}")
        }
    }
}

impl PartialEq<EngineExc> for ExcClass {
    fn eq(&self, other: &EngineExc) -> bool {
        *self == ExcClass::Engine(*other)
    }
}

impl std::fmt::Display for ExcClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Declares [`EngineExc`]: each class with the module that defines it in
/// the reference (empty for Python's builtins) and its name there.
macro_rules! engine_exceptions {
    ($($variant:ident = $module:expr, $name:literal;)*) => {
        /// The exception classes the engine itself raises. User-defined
        /// classes stay names ([`ExcClass::Named`], [`MplErr::names`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EngineExc {
            $(#[doc = concat!("`", $name, "`")] $variant,)*
        }

        impl EngineExc {
            const ALL: &'static [EngineExc] = &[$(EngineExc::$variant,)*];

            /// The module defining the class (empty for builtins).
            fn module(self) -> &'static str {
                match self {
                    $(EngineExc::$variant => $module,)*
                }
            }

            /// The class's own name.
            fn name(self) -> &'static str {
                match self {
                    $(EngineExc::$variant => $name,)*
                }
            }
        }
    };
}

engine_exceptions! {
    AmbiguousMethodName = DSL_EXC, "AmbiguousMethodName";
    CircularExpressionDependenciesError = DSL_EXC, "CircularExpressionDependenciesError";
    CircularInheritanceError = DSL_EXC, "CircularInheritanceError";
    ContractViolationException = DSL_EXC, "ContractViolationException";
    DslContractSyntaxError = DSL_EXC, "DslContractSyntaxError";
    DslInvalidOperationError = DSL_EXC, "DslInvalidOperationError";
    DslSyntaxError = DSL_EXC, "DslSyntaxError";
    InvalidLhsTargetError = DSL_EXC, "InvalidLhsTargetError";
    NoActionFound = DSL_EXC, "NoActionFound";
    NoClassFound = DSL_EXC, "NoClassFound";
    NoMethodFound = DSL_EXC, "NoMethodFound";
    NoObjectFoundError = DSL_EXC, "NoObjectFoundError";
    NoPropertyFound = DSL_EXC, "NoPropertyFound";
    NoWriteAccessError = DSL_EXC, "NoWriteAccessError";
    ObjectDestroyedError = DSL_EXC, "ObjectDestroyedError";
    PropertyReadError = DSL_EXC, "PropertyReadError";
    PropertyWriteError = DSL_EXC, "PropertyWriteError";
    UninitializedPropertyAccessError = DSL_EXC, "UninitializedPropertyAccessError";
    AmbiguousFunctionException = YAQL_EXC, "AmbiguousFunctionException";
    AmbiguousMethodException = YAQL_EXC, "AmbiguousMethodException";
    ArgumentException = YAQL_EXC, "ArgumentException";
    CollectionTooLargeException = YAQL_EXC, "CollectionTooLargeException";
    MappingTranslationException = YAQL_EXC, "MappingTranslationException";
    MemoryQuotaExceededException = YAQL_EXC, "MemoryQuotaExceededException";
    NoFunctionRegisteredException = YAQL_EXC, "NoFunctionRegisteredException";
    NoMatchingFunctionException = YAQL_EXC, "NoMatchingFunctionException";
    NoMatchingMethodException = YAQL_EXC, "NoMatchingMethodException";
    NoMethodRegisteredException = YAQL_EXC, "NoMethodRegisteredException";
    YaqlGrammarException = YAQL_EXC, "YaqlGrammarException";
    YaqlLexicalException = YAQL_EXC, "YaqlLexicalException";
    ArithmeticError = "", "ArithmeticError";
    AssertionError = "", "AssertionError";
    AttributeError = "", "AttributeError";
    Exception = "", "Exception";
    IndexError = "", "IndexError";
    KeyError = "", "KeyError";
    LookupError = "", "LookupError";
    OverflowError = "", "OverflowError";
    RecursionError = "", "RecursionError";
    RuntimeError = "", "RuntimeError";
    StopIteration = "", "StopIteration";
    TimeoutError = "", "TimeoutError";
    TypeError = "", "TypeError";
    ValueError = "", "ValueError";
    ZeroDivisionError = "", "ZeroDivisionError";
    RegexError = "re", "error";
    // The session's limits (not catchable by MuranoPL code).
    StepLimitExceeded = "", "StepLimitExceeded";
    TimeLimitExceeded = "", "TimeLimitExceeded";
    MemoryLimitExceeded = "", "MemoryLimitExceeded";
    ThreadLimitExceeded = "", "ThreadLimitExceeded";
    Cancelled = "", "Cancelled";
}

impl EngineExc {
    /// The limits that end a session: MuranoPL `Try` does not catch them.
    pub(super) fn is_limit(self) -> bool {
        matches!(
            self,
            EngineExc::StepLimitExceeded
                | EngineExc::TimeLimitExceeded
                | EngineExc::MemoryLimitExceeded
                | EngineExc::ThreadLimitExceeded
                | EngineExc::Cancelled
        )
    }
}

/// A MuranoPL-level exception.
#[derive(Debug)]
pub struct MplErr {
    /// The exception's class names (`Throw`).
    pub names: Vec<String>,
    /// The exception's message.
    pub message: String,
    pub(super) extra: Value,
    pub(super) frames: Vec<Frame>,
    /// The native error this exception was converted from (`Rethrow` of an
    /// engine or native error), if any.
    pub native: Option<Rc<NativeErr>>,
    /// The exception given as the `Cause:` of the `Throw` that raised it.
    pub cause: Option<Exc>,
}

/// An error travelling through the executor.
#[derive(Clone, Debug)]
pub enum Exc {
    /// An engine or native error, with the stack trace where it was raised.
    Native(Rc<NativeErr>, Rc<Vec<Frame>>),
    /// A MuranoPL exception (`Throw`, or an error after `Rethrow`).
    Mpl(Rc<MplErr>),
}

const DSL_EXC: &str = "murano.dsl.exceptions";
const YAQL_EXC: &str = "yaql.language.exceptions";

impl Exc {
    /// An error of class `module.class` (an [`EngineExc`] when it names
    /// one; the engine's own errors use `Exc::engine`).
    pub fn native(module: &str, class: &str, message: impl Into<String>) -> Exc {
        Exc::of_class(ExcClass::new(module, class), message)
    }

    /// An error of a class the engine raises.
    pub(crate) fn engine(class: EngineExc, message: impl Into<String>) -> Exc {
        Exc::of_class(ExcClass::Engine(class), message)
    }

    fn of_class(class: ExcClass, message: impl Into<String>) -> Exc {
        Exc::Native(
            Rc::new(NativeErr {
                class,
                message: message.into(),
            }),
            Rc::new(Vec::new()),
        )
    }

    /// An error of class `murano.dsl.exceptions.<class>`.
    pub fn dsl(class: &str, message: impl Into<String>) -> Exc {
        Exc::native(DSL_EXC, class, message)
    }

    /// A `ContractViolationException`.
    pub fn contract(message: impl Into<String>) -> Exc {
        Exc::engine(EngineExc::ContractViolationException, message)
    }

    /// Whether this is an engine error of class `class`.
    pub(super) fn is(&self, class: EngineExc) -> bool {
        matches!(self, Exc::Native(n, _) if n.class == class)
    }

    /// Exception names a `Catch With` is matched against.
    pub fn names(&self) -> Vec<String> {
        match self {
            Exc::Native(n, _) => vec![n.class.qualified()],
            Exc::Mpl(m) => m.names.clone(),
        }
    }

    /// The error's message.
    pub fn message(&self) -> String {
        match self {
            Exc::Native(n, _) => n.message.clone(),
            Exc::Mpl(m) => m.message.clone(),
        }
    }

    /// The stack trace where the error was raised, innermost frame first.
    pub fn frames(&self) -> Vec<Frame> {
        match self {
            Exc::Native(_, f) => (**f).clone(),
            Exc::Mpl(m) => m.frames.clone(),
        }
    }

    /// The MuranoPL form (after `Rethrow`).
    pub fn to_mpl(&self) -> Exc {
        match self {
            Exc::Mpl(_) => self.clone(),
            Exc::Native(n, frames) => Exc::Mpl(Rc::new(MplErr {
                names: vec![n.class.qualified()],
                message: n.message.clone(),
                extra: Value::dict(Default::default()),
                frames: (**frames).clone(),
                native: Some(n.clone()),
                cause: None,
            })),
        }
    }
}

/// How a call reached the method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// From outside the engine (batch `call`, actions).
    External,
    /// `$obj.m()` in an expression.
    Expression,
    /// `value.ext()` for an extension method.
    Extension,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_classes_are_known_by_module_and_name() {
        for e in EngineExc::ALL {
            assert_eq!(ExcClass::new(e.module(), e.name()), *e);
        }
        let e = Exc::dsl("NoClassFound", "x");
        assert!(e.is(EngineExc::NoClassFound));
        assert_eq!(e.names(), ["murano.dsl.exceptions.NoClassFound"]);
        assert_eq!(
            Exc::engine(EngineExc::RegexError, "x").names(),
            ["re.error"]
        );
        assert_eq!(Exc::engine(EngineExc::KeyError, "x").names(), ["KeyError"]);
        // Another module's class of the same name is not the engine's.
        let other = Exc::native("my.module", "NoClassFound", "x");
        assert!(!other.is(EngineExc::NoClassFound));
        assert_eq!(other.names(), ["my.module.NoClassFound"]);
    }

    #[test]
    fn limits_are_the_uncatchable_classes() {
        let limits: Vec<&str> = EngineExc::ALL
            .iter()
            .filter(|e| e.is_limit())
            .map(|e| e.name())
            .collect();
        assert_eq!(
            limits,
            [
                "StepLimitExceeded",
                "TimeLimitExceeded",
                "MemoryLimitExceeded",
                "ThreadLimitExceeded",
                "Cancelled"
            ]
        );
    }
}
