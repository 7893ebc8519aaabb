//! Small helpers the cloud natives share: the cloud error, the receiver
//! object, its properties, and how an object is named in progress lines.

use crate::runtime::types::*;
use crate::runtime::Rt;
use std::rc::Rc;
use vetro_yaql::Value;

pub(super) fn cloud_error(message: impl Into<String>) -> Exc {
    Exc::native("vetro.cloud", "CloudError", message)
}

/// The error of a backend call: the session's own limit error when the
/// backend gave up because the session was cancelled or ran out of time
/// (MuranoPL `Try` cannot catch it), else a cloud error.
pub(super) fn backend_error(rt: &Rt, message: impl Into<String>) -> Exc {
    rt.limit_passed().unwrap_or_else(|| cloud_error(message))
}

pub(super) fn this_object(this: &Value) -> Result<Rc<Object>, Exc> {
    as_object(this)
        .map(|(o, _)| o)
        .ok_or_else(|| Exc::engine(EngineExc::ValueError, "object expected"))
}

pub(super) fn prop(o: &Object, name: &str) -> Value {
    o.props.borrow().get(name).cloned().unwrap_or(Value::Null)
}

/// A short description of an object for progress lines: `Class name`.
pub(super) fn describe(o: &Object) -> String {
    // A progress line: a name that is no string is shown clipped.
    let name = match o.props.borrow().get("name") {
        Some(Value::Str(s)) => Some(s.to_string()),
        Some(v) => Some(v.repr_clipped(256)),
        None => None,
    };
    match name {
        Some(n) if !n.is_empty() && n != "None" => format!("{} {n}", o.class.name),
        _ => format!("{} {}", o.class.name, o.id),
    }
}
