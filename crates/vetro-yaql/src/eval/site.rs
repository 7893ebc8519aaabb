//! A compiled call site: the library overloads a call of the text can
//! mean, found once by the compile stage (`compile.rs`) and read by the
//! resolver (`resolve.rs`) at each evaluation.

use crate::func::context::NameSet;
use crate::func::{mask, Direct, DirectKey, DirectLazy, SharedDef};
use crate::value::Value;
use smallvec::SmallVec;
use std::sync::Arc;

/// The library overloads one call site can mean, innermost layer first.
pub(crate) struct Site {
    /// The name called ([`NameSet::of`]), to tell whether a context layer
    /// may redefine it.
    pub name: NameSet,
    pub layers: SmallVec<[SmallVec<[SiteCand; 4]>; 2]>,
    /// Every argument is an expression of the text (no receiver value):
    /// the overloads kept are all that fit, and agree on laziness.
    pub fixed: bool,
    /// A call of two argument expressions whose overload, for some kinds
    /// of values, is known to be one with a [`Direct`] body.
    pub direct: Option<DirectSite>,
    /// A `value.name` whose overload, for some kinds of values, is known
    /// to be one with a [`DirectKey`] body.
    pub direct_key: Option<DirectKeySite>,
    /// A call of two argument expressions whose only overload has a
    /// [`DirectLazy`] body.
    pub direct_lazy: Option<DirectLazy>,
}

/// The overload a `value.name` site picks for some kinds of its value.
#[derive(Clone)]
pub(crate) struct DirectKeySite {
    pub f: DirectKey,
    /// The value kinds ([`mask`]) for which no other overload can be
    /// picked: dictionaries only.
    pub kinds: u32,
}

impl DirectKeySite {
    pub const KINDS: u32 = mask::DICT;

    /// Whether the direct body is the overload picked for `v`.
    #[inline]
    pub fn takes(&self, v: &Value) -> bool {
        self.kinds & DirectSite::kind(v) != 0
    }
}

/// The overload a call site picks for some kinds of its two values.
#[derive(Clone)]
pub(crate) struct DirectSite {
    pub f: Direct,
    /// The pairs of value kinds (integer, float, string at each position)
    /// for which the resolver would pick this overload: a bit per pair,
    /// at [`DirectSite::pair`].
    pub pairs: u16,
}

impl DirectSite {
    /// The kind of `v`, when it is an integer, a float, a string or a
    /// dictionary.
    #[inline]
    pub fn kind(v: &Value) -> u32 {
        match v {
            Value::Int(_) => mask::INT,
            Value::Float(_) => mask::FLOAT,
            Value::Str(_) => mask::STR,
            Value::Dict(_) => mask::DICT,
            _ => 0,
        }
    }

    /// The kinds a direct call is made for (those whose kind alone decides
    /// which overloads accept them), in the order of [`DirectSite::pair`].
    pub const ORDER: [u32; 3] = [mask::INT, mask::FLOAT, mask::STR];

    /// The bit of a pair of kinds (indices into [`DirectSite::ORDER`]).
    pub const fn pair(a: usize, b: usize) -> u16 {
        1 << (a * 3 + b)
    }

    /// The index in [`DirectSite::ORDER`] of `v`'s kind.
    #[inline]
    fn index(v: &Value) -> Option<usize> {
        match v {
            Value::Int(_) => Some(0),
            Value::Float(_) => Some(1),
            Value::Str(_) => Some(2),
            _ => None,
        }
    }

    /// The direct body on two values it takes ([`DirectSite::takes`]).
    #[inline]
    pub fn call(&self, a: &Value, b: &Value) -> crate::error::Result<Value> {
        if let (Some(ints), Value::Int(x), Value::Int(y)) = (self.f.ints, a, b) {
            if let Some(v) = ints(*x, *y).value() {
                return Ok(v);
            }
        }
        (self.f.values)(a, b)
    }

    /// [`DirectSite::call`] when it succeeds (`None`: it failed).
    #[inline]
    pub fn call_ok(&self, a: &Value, b: &Value) -> Option<Value> {
        if let (Some(ints), Value::Int(x), Value::Int(y)) = (self.f.ints, a, b) {
            if let Some(v) = ints(*x, *y).value() {
                return Some(v);
            }
        }
        (self.f.values)(a, b).ok()
    }

    /// Whether the direct body is the overload picked for `a` and `b`.
    #[inline]
    pub fn takes(&self, a: &Value, b: &Value) -> bool {
        match (Self::index(a), Self::index(b)) {
            (Some(x), Some(y)) => self.pairs & Self::pair(x, y) != 0,
            _ => false,
        }
    }
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
