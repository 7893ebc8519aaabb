//! `boolean`: short-circuit `and`/`or`, `not`, `bool`, `isBoolean`.

use super::Reg;
use crate::error::{Error, Result};
use crate::eval::Lambda;
use crate::value::Value;

fn lam(l: Option<&Lambda>) -> Result<&Lambda> {
    l.ok_or_else(|| Error::type_err("operand expected"))
}

pub fn register(r: &Reg) {
    r.f("#operator_and", "left:Lambda, right:Lambda", |_, a| {
        let l = lam(a.lam(0))?.eval()?;
        if !l.truthy() {
            return Ok(l);
        }
        lam(a.lam(1))?.eval()
    });
    r.f("#operator_or", "left:Lambda, right:Lambda", |_, a| {
        let l = lam(a.lam(0))?.eval()?;
        if l.truthy() {
            return Ok(l);
        }
        lam(a.lam(1))?.eval()
    });
    r.f("#unary_operator_not", "arg:any", |_, a| {
        Ok(Value::Bool(!a.v(0).truthy()))
    });
    r.f("bool", "value:any", |_, a| Ok(Value::Bool(a.v(0).truthy())));
    r.f("isBoolean", "value:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::Bool(_))))
    });
}
