//! A compiled call site: the library overloads a call of the text can
//! mean, found once by the compile stage (`compile.rs`) and read by the
//! resolver (`resolve.rs`) at each evaluation.

use crate::func::SharedDef;
use smallvec::SmallVec;
use std::sync::Arc;

/// The library overloads one call site can mean, innermost layer first.
pub(crate) struct Site {
    pub layers: SmallVec<[SmallVec<[SiteCand; 4]>; 2]>,
    /// Every argument is an expression of the text (no receiver value):
    /// the overloads kept are all that fit, and agree on laziness.
    pub fixed: bool,
}

/// One overload of a call site.
pub(crate) struct SiteCand {
    pub def: Arc<SharedDef>,
    /// The argument positions it takes lazily (a bit per position).
    pub lazy: u64,
    /// The value kinds its parameters take at each position (to rank
    /// overloads).
    pub masks: SmallVec<[u32; 4]>,
}
