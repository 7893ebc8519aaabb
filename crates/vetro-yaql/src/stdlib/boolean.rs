//! `boolean`: short-circuit `and`/`or`, `not`, `bool`, `isBoolean`.

use super::Reg;
use crate::error::Result;
use crate::eval::Lambda;
use crate::func::SharedDef;
use crate::value::Value;
use crate::yaql_fn;

/// `left and right`: the left value when it is false, else the right one.
fn and(left: Value, right: &mut dyn FnMut() -> Result<Value>) -> Result<Value> {
    if !left.truthy() {
        return Ok(left);
    }
    right()
}

/// `left or right`: the left value when it is true, else the right one.
fn or(left: Value, right: &mut dyn FnMut() -> Result<Value>) -> Result<Value> {
    if left.truthy() {
        return Ok(left);
    }
    right()
}

pub fn register(r: &Reg) {
    let def: SharedDef = yaql_fn!(Function "#operator_and", |_c| (left: &Lambda, right: &Lambda) {
        and(left.eval()?, &mut || right.eval())
    })
    .into();
    r.add_def(def.with_direct_lazy(and));
    let def: SharedDef = yaql_fn!(Function "#operator_or", |_c| (left: &Lambda, right: &Lambda) {
        or(left.eval()?, &mut || right.eval())
    })
    .into();
    r.add_def(def.with_direct_lazy(or));
    r.add_def(
        yaql_fn!(Function "#unary_operator_not", |_c| (arg: &Value) {
            Ok(!arg.truthy())
        }),
    );
    r.add_def(yaql_fn!(Function "bool", |_c| (value: &Value) { Ok(value.truthy()) }));
    r.add_def(yaql_fn!(Function "isBoolean", |_c| (value: &Value) {
        Ok(matches!(value, Value::Bool(_)))
    }));
}
