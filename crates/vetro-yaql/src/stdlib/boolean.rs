//! `boolean`: short-circuit `and`/`or`, `not`, `bool`, `isBoolean`.

use super::Reg;
use crate::eval::Lambda;
use crate::value::Value;
use crate::yaql_fn;

pub fn register(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "#operator_and", |_c| (left: &Lambda, right: &Lambda) {
            let l = left.eval()?;
            if !l.truthy() {
                return Ok(l);
            }
            right.eval()
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_or", |_c| (left: &Lambda, right: &Lambda) {
            let l = left.eval()?;
            if l.truthy() {
                return Ok(l);
            }
            right.eval()
        }),
    );
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
