//! One engine session: load the model, call the deployment method, an
//! action (with its arguments) or a static method, collect the garbage and
//! serialize the model again, with the task's cloud installed as backend.

use serde_json::Value as Json;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use vetro_dsl::cloud::{self, CloudBackend, EventSink};
use vetro_dsl::host::Library;
use vetro_dsl::runtime::types::{as_object, Exc};
use vetro_dsl::runtime::Rt;
use vetro_dsl::syntax::class::MethodUsage;
use vetro_yaql::Value;

/// What the session calls.
pub enum Call {
    /// A method of the root object (`deploy`); nothing when the model has no
    /// objects (a deletion: only the garbage collection of the previous objects runs).
    Root(String),
    /// An action of one object, with keyword arguments.
    Action {
        object_id: String,
        method: String,
        args: Json,
    },
    /// A static method of a class, with keyword arguments.
    Static {
        class: String,
        method: String,
        args: Json,
    },
}

/// What a session produced.
pub struct Session {
    /// The method's result (JSON form), or its uncaught exception.
    pub result: Result<Json, Exc>,
    /// The serialized model; `None` when the model did not even load.
    pub model: Option<Json>,
}

/// Run `call` over `model` with `cloud` as the backend.
pub fn run(
    lib: &Library,
    model: &Json,
    call: &Call,
    cloud: Box<dyn CloudBackend>,
    sink: EventSink,
    cancel: Arc<AtomicBool>,
) -> Session {
    let rt = lib.session();
    cloud::attach(&rt, lib.host(cloud, Some(sink)));
    rt.set_cancel_flag(cancel);
    let session = match call {
        Call::Static { .. } => Session {
            result: invoke(&rt, None, call),
            model: None,
        },
        _ => match rt.load_model(model) {
            Err(e) => Session {
                result: Err(e),
                model: None,
            },
            Ok(root) => {
                let result = invoke(&rt, root, call);
                rt.collect_garbage_from_root();
                // A model that cannot be written fails the run and keeps
                // the stored one.
                match rt.serialize_model() {
                    Ok(model) => Session {
                        result,
                        model: Some(model),
                    },
                    Err(e) => Session {
                        result: Err(e),
                        model: None,
                    },
                }
            }
        },
    };
    drop(cloud::detach(&rt));
    session
}

fn kwargs(rt: &Rt, args: &Json) -> Result<Vec<(String, Value)>, Exc> {
    match args {
        Json::Null => Ok(Vec::new()),
        Json::Object(map) => Ok(map.iter().map(|(k, v)| (k.clone(), rt.decode(v))).collect()),
        other => Err(Exc::dsl(
            "ValueError",
            format!("action arguments must be an object of named values, not {other}"),
        )),
    }
}

fn invoke(
    rt: &Rt,
    root: Option<Rc<vetro_dsl::runtime::types::Object>>,
    call: &Call,
) -> Result<Json, Exc> {
    let (recv, method, args) = match call {
        Call::Root(method) => match root {
            None => return Ok(Json::Null),
            Some(r) => (r.value(), method, Vec::new()),
        },
        Call::Action {
            object_id,
            method,
            args,
        } => {
            let found = rt.object(object_id).map(|o| o.value());
            let recv = found.ok_or_else(|| {
                Exc::dsl(
                    "NoObjectFoundError",
                    format!("Object \"{object_id}\" is not found in object store"),
                )
            })?;
            if let Some((o, _)) = as_object(&recv) {
                require_usage(&o.class, method, MethodUsage::Action, "Action")?;
            }
            (recv, method, kwargs(rt, args)?)
        }
        Call::Static {
            class,
            method,
            args,
        } => {
            let c = rt.class(class)?;
            require_usage(&c, method, MethodUsage::Static, "Static method")?;
            (c.type_value(), method, kwargs(rt, args)?)
        }
    };
    vetro_dsl::core::call_external(rt, &recv, method, Vec::new(), args)
        .and_then(|v| rt.encode_result(&v))
}

/// The API only runs methods declared for it (`Usage: Action`, or
/// `Usage: Static` with `Scope: Public`).
fn require_usage(
    class: &Rc<vetro_dsl::runtime::types::Class>,
    method: &str,
    usage: MethodUsage,
    what: &str,
) -> Result<(), Exc> {
    let ok = class
        .find_methods(method)
        .first()
        .is_some_and(|(_, m)| m.usage == usage && m.public);
    if ok {
        Ok(())
    } else {
        Err(Exc::dsl(
            "NoActionFound",
            format!("{what} \"{method}\" is not found in class {}", class.name),
        ))
    }
}
