//! The legacy layer (`yaql.legacy.create_context()`): 0.2-compatible
//! functions registered in an innermost layer.

use super::Reg;
use crate::context::Context;
use crate::EngineOptions;

pub fn register(ctx: &Context, _opts: &EngineOptions) {
    let _r = Reg { ctx };
}
