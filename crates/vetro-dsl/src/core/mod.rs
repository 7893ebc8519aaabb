//! vetro's `io.murano` core library: MuranoPL declarations (core.yaml) plus
//! the native method implementations, and the conformance-mode native classes.

use crate::kind::DslKind;
use crate::package::Package;
use crate::runtime::call::CallKind;
use crate::runtime::natives::{NativeCall, NativeMethod, Natives};
use crate::runtime::types::*;
use crate::runtime::Rt;
use crate::syntax::class::{defines_class, read_class, read_namespaces, DocContext};
use crate::syntax::data::{DataReader, PathSeg};
use crate::syntax::Namespaces;
use std::rc::Rc;
use std::sync::Arc;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::LoadOptions;
use vetro_yaql::value::{Dict, Render};
use vetro_yaql::Value;

const CORE_YAML: &str = include_str!("core.yaml");

/// The core library's native methods: each class, its methods and the
/// function answering them.
const NATIVES: &[NativeMethod] = &[
    NativeMethod {
        class: "io.murano.Object",
        methods: &["setAttr"],
        body: set_attr,
    },
    NativeMethod {
        class: "io.murano.Object",
        methods: &["getAttr"],
        body: get_attr,
    },
    NativeMethod {
        class: "io.murano.system.GC",
        methods: &["collect"],
        body: gc_collect,
    },
    NativeMethod {
        class: "io.murano.system.GC",
        methods: &["isDoomed"],
        body: gc_is_doomed,
    },
    NativeMethod {
        class: "io.murano.system.GC",
        methods: &["isDestroyed"],
        body: gc_is_destroyed,
    },
    NativeMethod {
        class: "io.murano.system.GC",
        methods: &["subscribeDestruction"],
        body: gc_subscribe,
    },
    NativeMethod {
        class: "io.murano.system.GC",
        methods: &["unsubscribeDestruction"],
        body: gc_unsubscribe,
    },
    // Without a host, logs and status reports go nowhere.
    NativeMethod {
        class: "io.murano.system.Logger",
        methods: LOG_LEVELS,
        body: nothing,
    },
    NativeMethod {
        class: "io.murano.system.StatusReporter",
        methods: &["report", "report_error"],
        body: nothing,
    },
    NativeMethod {
        class: "io.murano.system.AgentListener",
        methods: &["subscribe", "unsubscribe", "queueName", "agentSettings"],
        body: agent_listener_disabled,
    },
    NativeMethod {
        class: "io.murano.Exception",
        methods: &["toString"],
        body: exception_to_string,
    },
    NativeMethod {
        class: "io.murano.StackTrace",
        methods: &["toString"],
        body: stack_trace_to_string,
    },
];

/// The methods of `io.murano.system.Logger`, one per level.
pub(crate) const LOG_LEVELS: &[&str] = &[
    "trace",
    "debug",
    "info",
    "warning",
    "error",
    "critical",
    "exception",
];

/// Register the core library's native methods.
pub fn register_natives(natives: &mut Natives) {
    natives.table(NATIVES, |_| true);
}

/// The core library as a package named `io.murano`.
pub fn core_package(sources: &mut SourceMap) -> Package {
    builtin_package(sources, "<core>/core.yaml", CORE_YAML)
}

/// A library bundled with the binary (class files in `text`) as a package
/// named `io.murano`; class problems are kept in the package's problems.
pub(crate) fn builtin_package(sources: &mut SourceMap, name: &str, text: &'static str) -> Package {
    let mut pkg = Package {
        name: "io.murano".into(),
        version: "0.0.0".into(),
        format: "1.4".into(),
        ..Default::default()
    };
    let file = sources.add(name, text);
    let docs = match vetro_yaml::load_str(sources, file, &LoadOptions::default()) {
        Ok(d) => d,
        Err(e) => {
            pkg.problems.extend(e);
            return pkg;
        }
    };
    let mut ns = Arc::new(Namespaces::default());
    let mut reader = DataReader::new();
    for (i, node) in docs.iter().enumerate() {
        let Ok(doc) = reader.read(node, &mut vec![PathSeg::Index(i)]) else {
            continue;
        };
        if let Some(n) = read_namespaces(&doc) {
            ns = Arc::new(n);
        }
        if !defines_class(&doc) {
            continue;
        }
        let ctx = DocContext {
            namespaces: ns.clone(),
            default_name: None,
            file_name: name,
            test_methods_public: false,
        };
        match read_class(&doc, &ctx) {
            Ok(rc) => {
                pkg.classes
                    .insert(rc.class.name.clone(), Arc::new(rc.class));
            }
            Err(p) => pkg
                .problems
                .push(Diagnostic::error(DslKind::Class, p.message).with_span(p.span)),
        }
    }
    pkg
}

/// The text of an optional argument (empty when it is missing), within the
/// session's memory.
fn text_of(rt: &Rt, v: Option<&Value>) -> Result<String, Exc> {
    v.map_or(Ok(String::new()), |v| rt.py_str(v))
}

/// A destruction handler's name (`None` when it is missing or null).
fn handler_of(rt: &Rt, v: Option<&Value>) -> Result<Option<String>, Exc> {
    v.filter(|v| !v.is_null()).map(|v| rt.py_str(v)).transpose()
}

/// One frame of `StackTrace.toString()`: where, then the instruction.
fn write_frame(d: &Dict, prefix: Option<&Value>, out: &mut Render) -> vetro_yaql::Result<()> {
    let g = |k: &str| d.get(&Value::str(k)).cloned().unwrap_or(Value::Null);
    // Python's `str()` of a field, `''` for one that is missing.
    let field = |out: &mut Render, v: Option<&Value>| match v {
        Some(v) => v.write_py_str(out),
        None => Ok(()),
    };
    let loc = match &g("location") {
        Value::Dict(l) => Some(l.clone()),
        _ => None,
    };
    let at = |k: &str| loc.as_ref().and_then(|l| l.get(&Value::str(k)).cloned());
    field(out, prefix)?;
    out.push_str("File \"")?;
    field(out, at("file").as_ref())?;
    out.push_str("\", line ")?;
    field(out, at("line").as_ref())?;
    out.push(':')?;
    field(out, at("column").as_ref())?;
    out.push_str(" in method ")?;
    g("methodName").write_py_str(out)?;
    out.push_str(" of type ")?;
    g("typeName").write_py_str(out)?;
    out.push('\n')?;
    field(out, prefix)?;
    out.push_str("    ")?;
    g("instruction").write_py_str(out)
}

fn set_attr(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let o = object_of(c.this)?;
    let key = text_of(c.rt, c.arg(0, "name"))?;
    c.rt.set_attribute(&o, key, c.value(1, "value"));
    Ok(Value::Null)
}

fn get_attr(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let o = object_of(c.this)?;
    let key = text_of(c.rt, c.arg(0, "name"))?;
    Ok(c.rt
        .attribute(&o.id, &key)
        .unwrap_or_else(|| c.value(1, "default")))
}

fn gc_collect(c: &NativeCall<'_>) -> Result<Value, Exc> {
    c.rt.collect_garbage_while_running();
    Ok(Value::Null)
}

fn gc_is_doomed(c: &NativeCall<'_>) -> Result<Value, Exc> {
    Ok(Value::Bool(
        c.arg(0, "object")
            .and_then(as_object)
            .is_some_and(|(o, _)| o.destroyed.get() || o.doomed.get()),
    ))
}

fn gc_is_destroyed(c: &NativeCall<'_>) -> Result<Value, Exc> {
    Ok(Value::Bool(
        c.arg(0, "object")
            .and_then(as_object)
            .is_some_and(|(o, _)| o.destroyed.get()),
    ))
}

/// A destruction subscription: publisher, subscriber and handler.
struct Subscription {
    publisher: Rc<Object>,
    subscriber: Rc<Object>,
    handler: Option<String>,
}

fn subscription(c: &NativeCall<'_>) -> Result<Subscription, Exc> {
    Ok(Subscription {
        publisher: object_of(c.arg(0, "publisher").unwrap_or(&Value::Null))?,
        subscriber: object_of(c.arg(1, "subscriber").unwrap_or(&Value::Null))?,
        handler: handler_of(c.rt, c.arg(2, "handler"))?,
    })
}

fn gc_subscribe(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let Subscription {
        publisher,
        subscriber,
        handler,
    } = subscription(c)?;
    let mut subs = publisher.subscribers.borrow_mut();
    if !subs
        .iter()
        .any(|(x, h)| Rc::ptr_eq(x, &subscriber) && *h == handler)
    {
        subs.push((subscriber, handler));
    }
    Ok(Value::Null)
}

fn gc_unsubscribe(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let Subscription {
        publisher,
        subscriber,
        handler,
    } = subscription(c)?;
    publisher
        .subscribers
        .borrow_mut()
        .retain(|(x, h)| !(Rc::ptr_eq(x, &subscriber) && *h == handler));
    Ok(Value::Null)
}

fn nothing(_: &NativeCall<'_>) -> Result<Value, Exc> {
    Ok(Value::Null)
}

fn agent_listener_disabled(_: &NativeCall<'_>) -> Result<Value, Exc> {
    Err(Exc::native(
        "murano.engine.system.agent_listener",
        "AgentListenerException",
        "Agent listener is disabled",
    ))
}

fn exception_to_string(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let o = object_of(c.this)?;
    let p = o.props.borrow();
    let n = text_of(c.rt, p.get("name"))?;
    let m = text_of(c.rt, p.get("message"))?;
    Ok(Value::str(&format!("{n}: {m}")))
}

fn stack_trace_to_string(c: &NativeCall<'_>) -> Result<Value, Exc> {
    let o = object_of(c.this)?;
    let prefix = c.arg(0, "prefix").cloned();
    let frames = o
        .props
        .borrow()
        .get("frames")
        .cloned()
        .unwrap_or(Value::Null);
    let frames = c.rt.items(&frames)?;
    let text = c.rt.render_text(|out| {
        let mut first = true;
        for f in &frames {
            if let Value::Dict(d) = f {
                if !first {
                    out.push('\n')?;
                }
                first = false;
                write_frame(d, prefix.as_ref(), out)?;
            }
        }
        Ok(())
    })?;
    Ok(Value::str(&text))
}

fn object_of(v: &Value) -> Result<Rc<Object>, Exc> {
    as_object(v)
        .map(|(o, _)| o)
        .ok_or_else(|| Exc::engine(EngineExc::ValueError, "object expected"))
}

/// Call helper used by the batch protocol and the CLI.
pub fn call_external(
    rt: &Rt,
    recv: &Value,
    method: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> Result<Value, Exc> {
    rt.call_method(recv, method, args, kwargs, CallKind::External)
}
