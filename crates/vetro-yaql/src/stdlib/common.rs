//! `common`: equality and null ordering.

use super::Reg;
use crate::value::Value;

pub fn register(r: &Reg) {
    r.f("*equal", "left:any, right:any", |_, a| {
        Ok(Value::Bool(a.v(0) == a.v(1)))
    });
    r.f("*not_equal", "left:any, right:any", |_, a| {
        Ok(Value::Bool(a.v(0) != a.v(1)))
    });
    // null is smaller than anything; null vs null is equal.
    for (name, both, left_null, right_null) in [
        ("#operator_<", false, true, false),
        ("#operator_<=", true, true, false),
        ("#operator_>", false, false, true),
        ("#operator_>=", true, false, true),
    ] {
        r.f(name, "left:NoneType?, right:NoneType?", move |_, _| {
            Ok(Value::Bool(both))
        });
        r.f(name, "left:NoneType?, right:object", move |_, _| {
            Ok(Value::Bool(left_null))
        });
        r.f(name, "left:object, right:NoneType?", move |_, _| {
            Ok(Value::Bool(right_null))
        });
    }
}
