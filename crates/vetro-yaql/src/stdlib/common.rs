//! `common`: equality and null ordering.

use super::Reg;
use crate::func::params::Object;
use crate::value::Value;
use crate::yaql_fn;

pub fn register(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "*equal", |_c| (left: &Value, right: &Value) {
            Ok(left == right)
        }),
    );
    r.add_def(
        yaql_fn!(Function "*not_equal", |_c| (left: &Value, right: &Value) {
            Ok(left != right)
        }),
    );
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
