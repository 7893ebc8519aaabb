//! What an operation on big integers costs, charged to the evaluation
//! before it starts.
//!
//! One multiplication, division or modular power of big integers cannot be
//! interrupted once started, and its time grows faster than its operands:
//! `pow(7, x, m)` with numbers of a million digits would run for hours. So
//! each such operation estimates its work in 64-bit word operations from
//! its operands' sizes, is refused when that is over [`MAX_WORK`] (about a
//! second on a slow machine), and otherwise counts as many evaluation
//! operations as it does work ([`WORK_PER_OPERATION`] words each), checking
//! the time, operation and memory limits at once.

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Run;
use num_bigint::BigInt;

/// The most word operations one integer operation may take.
pub const MAX_WORK: u64 = 1 << 29;

/// Word operations counted as one evaluation operation (about the time of
/// one function call).
pub const WORK_PER_OPERATION: u64 = 64;

/// The 64-bit words of `b` (at least 1).
pub fn words(b: &BigInt) -> u64 {
    b.bits().div_ceil(64).max(1)
}

/// Charge `work` word operations to `run` (when there is one), or refuse
/// them when over [`MAX_WORK`].
pub fn charge(run: Option<&Run>, work: u64) -> Result<()> {
    if work > MAX_WORK {
        return Err(Error::new(
            ErrorKind::Overflow,
            "integer operation too large to compute",
        ));
    }
    match run {
        Some(run) => run.charge(work / WORK_PER_OPERATION),
        None => Ok(()),
    }
}

/// A product of integers of `a` and `b` words (Karatsuba: the smaller one's
/// size to the power 1.585, once per block of the larger one).
pub fn mul(a: u64, b: u64) -> u64 {
    let (small, large) = (a.min(b), a.max(b));
    let blocks = large.div_ceil(small);
    ((small as f64).powf(1.585) as u64).saturating_mul(blocks)
}

/// A division of `n` words by `d` words (schoolbook: every word of the
/// quotient costs a pass over the divisor).
pub fn div(n: u64, d: u64) -> u64 {
    d.saturating_mul(n.saturating_sub(d) + 1)
}

/// `base ** e % m` for an exponent of `e_bits` bits and a modulus of `m`
/// words: two products and reductions per bit of the exponent.
pub fn modpow(e_bits: u64, m: u64) -> u64 {
    e_bits.saturating_mul(2).saturating_mul(m.saturating_mul(m))
}

/// The extended Euclidean algorithm on integers of `m` words.
pub fn gcd(m: u64) -> u64 {
    m.saturating_mul(m).saturating_mul(4)
}
