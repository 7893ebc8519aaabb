//! `common`: equality and null ordering.

use super::Reg;
use crate::error::Result;
use crate::func::params::Object;
use crate::func::{IntOutcome, SharedDef};
use crate::value::Value;
use crate::yaql_fn;

fn equal(a: &Value, b: &Value) -> Result<Value> {
    Ok(Value::Bool(a == b))
}

fn not_equal(a: &Value, b: &Value) -> Result<Value> {
    Ok(Value::Bool(a != b))
}

pub fn register(r: &Reg) {
    let def: SharedDef =
        yaql_fn!(Function "*equal", |_c| (left: &Value, right: &Value) { equal(left, right) })
            .into();
    r.add_def(def.with_direct_ints(equal, |a, b| IntOutcome::bool(a == b)));
    let def: SharedDef = yaql_fn!(Function "*not_equal", |_c| (left: &Value, right: &Value) {
        not_equal(left, right)
    })
    .into();
    r.add_def(def.with_direct_ints(not_equal, |a, b| IntOutcome::bool(a != b)));
    // null is smaller than anything; null vs null is equal.
    for (name, both, left_null, right_null) in [
        ("#operator_<", false, true, false),
        ("#operator_<=", true, true, false),
        ("#operator_>", false, false, true),
        ("#operator_>=", true, false, true),
    ] {
        r.add_def(yaql_fn!(Function name, |_c| (left: (), right: ()) { Ok(both) }));
        r.add_def(yaql_fn!(Function name, |_c| (left: (), right: Object) { Ok(left_null) }));
        r.add_def(yaql_fn!(Function name, |_c| (left: Object, right: ()) { Ok(right_null) }));
    }
}
