//! One YAML document of a class file to a class definition.

use super::body::{compile_block, Block, SyntaxError};
use super::data::Data;
use super::namespaces::Namespaces;
use indexmap::IndexMap;
use std::sync::Arc;
use vetro_diag::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassUsage {
    Class,
    Meta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// A property's `Usage`.
pub enum PropUsage {
    /// `In`: set from the model, read-only in code.
    In,
    /// `Out`: set by code, not read from the model.
    Out,
    /// `InOut`: set from the model and by code.
    InOut,
    /// `Const`: set from the model once, read-only.
    Const,
    /// `Runtime`: set by code, never serialized.
    Runtime,
    /// `Config`: set from the configuration, never serialized.
    Config,
    /// `Static`: one value per class and session.
    Static,
}

impl PropUsage {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "In" => Self::In,
            "Out" => Self::Out,
            "InOut" => Self::InOut,
            "Const" => Self::Const,
            "Runtime" => Self::Runtime,
            "Config" => Self::Config,
            "Static" => Self::Static,
            _ => return None,
        })
    }

    /// Whether the serializer writes properties of this usage.
    pub(crate) fn serialized(self) -> bool {
        !matches!(self, Self::Runtime | Self::Config | Self::Static)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// A method's `Usage`.
pub enum MethodUsage {
    /// `Runtime`: called on an object.
    Runtime,
    /// `Action`: an object's method callable from outside (an action).
    Action,
    /// `Static`: called on the class.
    Static,
    /// `Extension`: a static method called as a method of its first argument.
    Extension,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// A method argument's `Usage`.
pub enum ArgUsage {
    /// One positional or keyword argument.
    Standard,
    /// `VarArgs`: the remaining positional arguments, as a list.
    VarArgs,
    /// `KwArgs`: the remaining keyword arguments, as a dict.
    KwArgs,
}

#[derive(Clone, Debug)]
/// A property declaration.
pub struct PropertyDef {
    pub(crate) name: String,
    /// Its `Contract`.
    pub contract: Data,
    /// Its `Usage`.
    pub usage: PropUsage,
    /// Its `Default`, when given.
    pub default: Option<Data>,
    pub(crate) meta: Data,
    pub(crate) span: Span,
}

#[derive(Clone, Debug)]
/// A method argument declaration.
pub struct ArgDef {
    /// The argument's name.
    pub name: String,
    /// Its `Contract`, when given.
    pub contract: Option<Data>,
    /// Its `Default`, when given.
    pub default: Option<Data>,
    /// Its `Usage`.
    pub usage: ArgUsage,
    /// Its `Meta` (null when none).
    pub meta: Data,
}

#[derive(Clone, Debug)]
/// A method declaration with its compiled body.
pub struct MethodDef {
    pub(crate) name: String,
    /// Its `Usage`.
    pub usage: MethodUsage,
    /// `Scope: Public` (an action callable from outside).
    pub public: bool,
    /// Its `Arguments`, in order.
    pub args: Vec<ArgDef>,
    pub(crate) body: Block,
    pub(crate) returns: Option<Data>,
    pub(crate) meta: Data,
    pub(crate) span: Span,
}

impl MethodDef {
    pub(crate) fn is_static(&self) -> bool {
        matches!(self.usage, MethodUsage::Static | MethodUsage::Extension)
    }
}

#[derive(Clone, Debug)]
/// A class as its class file defines it.
pub struct ClassDef {
    /// The class's full name.
    pub name: String,
    /// The namespace prefixes of its file (to resolve names written in it).
    pub namespaces: Arc<Namespaces>,
    /// Parent class names, already resolved.
    pub extends: Vec<String>,
    pub(crate) usage: ClassUsage,
    /// Shared so that lookups along the hierarchy clone a pointer, not a tree.
    pub properties: IndexMap<String, Arc<PropertyDef>>,
    /// Its methods by name.
    pub methods: IndexMap<String, Arc<MethodDef>>,
    pub(crate) meta: Data,
    pub(crate) import: Vec<String>,
    pub(crate) cardinality_many: bool,
    pub(crate) inherited: bool,
    pub(crate) applies: Vec<String>,
    pub(crate) file_name: String,
    pub(crate) span: Span,
}

/// A method body that failed to compile (the class is still returned so
/// checks can report every method).
#[derive(Clone, Debug)]
pub(crate) struct MethodProblem {
    pub(crate) method: String,
    pub(crate) error: SyntaxError,
}

#[derive(Clone, Debug)]
pub(crate) struct ClassProblem {
    pub(crate) message: String,
    pub(crate) span: Span,
}

/// Outcome of reading one document.
pub(crate) struct ReadClass {
    pub(crate) class: ClassDef,
    pub(crate) method_problems: Vec<MethodProblem>,
    /// Method names in declaration order with whether their body compiled.
    pub(crate) methods_ok: Vec<(String, bool, Option<String>)>,
}

fn str_list(d: Option<&Data>) -> Vec<String> {
    match d {
        None | Some(Data::Null) => Vec::new(),
        Some(Data::List(items, _)) => items
            .iter()
            .filter_map(|i| i.key_text().map(str::to_string))
            .collect(),
        Some(other) => other.key_text().map(str::to_string).into_iter().collect(),
    }
}

/// Read the `Namespaces` of a document, if present.
pub(crate) fn read_namespaces(doc: &Data) -> Option<Namespaces> {
    let m = doc.get("Namespaces")?;
    let mut ns = Namespaces::default();
    for (k, v) in m.as_map().unwrap_or(&[]) {
        let key = k.key_text().unwrap_or_default().to_string();
        let val = match v {
            Data::Null => String::new(),
            other => other.key_text().unwrap_or_default().to_string(),
        };
        ns.map.insert(key, val);
    }
    Some(ns)
}

/// Whether a document defines a class (more than just `Namespaces`).
pub(crate) fn defines_class(doc: &Data) -> bool {
    doc.as_map()
        .is_some_and(|m| m.iter().any(|(k, _)| k.as_str() != Some("Namespaces")))
}

pub(crate) struct DocContext<'a> {
    pub(crate) namespaces: Arc<Namespaces>,
    /// Name the package maps to this file (used when the document has no `Name`).
    pub(crate) default_name: Option<&'a str>,
    pub(crate) file_name: &'a str,
    /// The `tests` package rule: methods named `test*` are public.
    pub(crate) test_methods_public: bool,
}

/// Build a class from a document.
pub(crate) fn read_class(doc: &Data, ctx: &DocContext<'_>) -> Result<ReadClass, ClassProblem> {
    let span = match doc {
        Data::Map(_, s) => *s,
        _ => Span::default(),
    };
    let problem = |message: String| ClassProblem { message, span };
    let ns = &ctx.namespaces;
    let name = match doc.get("Name").and_then(Data::key_text) {
        Some(n) => ns
            .resolve(n)
            .map_err(|e| problem(format!("Unknown namespace prefix {}", e.0)))?,
        None => ctx
            .default_name
            .map(str::to_string)
            .ok_or_else(|| problem("class document has no Name".into()))?,
    };
    let mut extends = Vec::new();
    for e in str_list(doc.get("Extends")) {
        extends.push(
            ns.resolve(&e)
                .map_err(|e| problem(format!("Unknown namespace prefix {}", e.0)))?,
        );
    }
    let usage = match doc.get("Usage").and_then(Data::as_str) {
        Some("Meta") => ClassUsage::Meta,
        _ => ClassUsage::Class,
    };
    let mut properties = IndexMap::new();
    if let Some(props) = doc.get("Properties").and_then(Data::as_map) {
        for (k, v) in props {
            let pname = k.key_text().unwrap_or_default().to_string();
            let pusage = match v.get("Usage").and_then(Data::as_str) {
                None => PropUsage::In,
                Some(u) => PropUsage::parse(u)
                    .ok_or_else(|| problem(format!("Unknown property usage {u}")))?,
            };
            properties.insert(
                pname.clone(),
                Arc::new(PropertyDef {
                    name: pname,
                    contract: v.get("Contract").cloned().unwrap_or(Data::Null),
                    usage: pusage,
                    default: v.get("Default").cloned(),
                    meta: v.get("Meta").cloned().unwrap_or(Data::Null),
                    span: match v {
                        Data::Map(_, s) => *s,
                        _ => span,
                    },
                }),
            );
        }
    }
    let mut methods = IndexMap::new();
    let mut method_problems = Vec::new();
    let mut methods_ok = Vec::new();
    let mdata = doc.get("Methods").or_else(|| doc.get("Workflow"));
    if let Some(ms) = mdata.and_then(Data::as_map) {
        for (k, v) in ms {
            let raw = k.key_text().unwrap_or_default().to_string();
            let mname = match raw.as_str() {
                "initialize" => ".init".to_string(),
                "destroy" => ".destroy".to_string(),
                _ => raw.clone(),
            };
            let mspan = match v {
                Data::Map(_, s) => *s,
                _ => span,
            };
            match read_method(&mname, v, mspan, ctx) {
                Ok(m) => {
                    methods_ok.push((raw, true, None));
                    methods.insert(mname, Arc::new(m));
                }
                Err(e) => {
                    methods_ok.push((raw.clone(), false, Some(e.message.clone())));
                    method_problems.push(MethodProblem {
                        method: raw,
                        error: e,
                    });
                }
            }
        }
    }
    let applies = match doc.get("Applies") {
        None | Some(Data::Null) => vec!["All".to_string()],
        other => str_list(other),
    };
    Ok(ReadClass {
        class: ClassDef {
            name,
            namespaces: ctx.namespaces.clone(),
            extends,
            usage,
            properties,
            methods,
            meta: doc.get("Meta").cloned().unwrap_or(Data::Null),
            import: str_list(doc.get("Import")),
            cardinality_many: doc.get("Cardinality").and_then(Data::as_str) == Some("Many"),
            inherited: matches!(doc.get("Inherited"), Some(Data::Bool(true))),
            applies,
            file_name: ctx.file_name.to_string(),
            span,
        },
        method_problems,
        methods_ok,
    })
}

fn read_method(
    name: &str,
    v: &Data,
    span: Span,
    ctx: &DocContext<'_>,
) -> Result<MethodDef, SyntaxError> {
    let bad = |m: &str| SyntaxError {
        message: m.to_string(),
        span,
    };
    let usage = match v.get("Usage").and_then(Data::as_str) {
        None | Some("Runtime") => MethodUsage::Runtime,
        Some("Action") => MethodUsage::Action,
        Some("Static") => MethodUsage::Static,
        Some("Extension") => MethodUsage::Extension,
        Some(other) => return Err(bad(&format!("Unknown method usage {other}"))),
    };
    let scope = v.get("Scope").and_then(Data::as_str);
    if usage == MethodUsage::Action && scope == Some("Session") {
        return Err(bad("Usage: Action conflicts with Scope: Session"));
    }
    let public = usage == MethodUsage::Action
        || scope == Some("Public")
        || (ctx.test_methods_public && name.starts_with("test"));
    let mut args = Vec::new();
    let records: Vec<(Data, Data)> = match v.get("Arguments") {
        None | Some(Data::Null) => Vec::new(),
        Some(Data::Map(m, _)) => m.clone(),
        Some(Data::List(items, _)) => {
            let mut out = Vec::new();
            for item in items {
                match item.as_map() {
                    Some([(k, v)]) => out.push((k.clone(), v.clone())),
                    _ => return Err(bad("Invalid arguments declaration")),
                }
            }
            out
        }
        Some(_) => return Err(bad("Invalid arguments declaration")),
    };
    let mut stage = 0;
    for (k, spec) in records {
        let aname = k.key_text().unwrap_or_default().to_string();
        let ausage = match spec.get("Usage").and_then(Data::as_str) {
            None | Some("Standard") => ArgUsage::Standard,
            Some("VarArgs") => ArgUsage::VarArgs,
            Some("KwArgs") => ArgUsage::KwArgs,
            Some(other) => return Err(bad(&format!("Unknown argument usage {other}"))),
        };
        let this_stage = match ausage {
            ArgUsage::Standard => 0,
            ArgUsage::VarArgs => 1,
            ArgUsage::KwArgs => 2,
        };
        if this_stage < stage || (this_stage > 0 && this_stage == stage) {
            return Err(bad(&format!("Invalid argument order in method {name}")));
        }
        stage = this_stage;
        args.push(ArgDef {
            name: aname,
            contract: spec.get("Contract").cloned(),
            default: spec.get("Default").cloned(),
            usage: ausage,
            meta: spec.get("Meta").cloned().unwrap_or(Data::Null),
        });
    }
    let body = compile_block(v.get("Body").unwrap_or(&Data::Null), span)?;
    Ok(MethodDef {
        name: name.to_string(),
        usage,
        public: public && !name.starts_with('.'),
        args,
        body,
        returns: v.get("Returns").cloned(),
        meta: v.get("Meta").cloned().unwrap_or(Data::Null),
        span,
    })
}
