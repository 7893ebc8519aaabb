//! The JSON readers held against each other, for the tests and the
//! `json_readers` fuzz target: the direct reader, the serde_json path it
//! falls back to, and serde_json's own value as a third opinion.

use super::direct::{self, GaveUp};
use super::{fast_json, serde_json_path, Loader};
use crate::value::Value;

/// Checks that the JSON readers agree on `text`: where the direct reader
/// takes it, the serde_json path gives the same value (kind for kind, bit
/// for bit, keys in the same order); where it refuses it, so does the
/// serde_json path; where it gives up on deep nesting, loading gives
/// exactly what the serde_json path gives. Whatever the serde_json path
/// takes, serde_json's own reader reads as the same value.
/// `Ok` says whether the direct reader took the text.
#[doc(hidden)]
pub fn json_readers_agree(text: &str) -> Result<bool, String> {
    let slow = serde_json_path(text, None);
    let taken = match direct::parse(text, &mut Loader::new(None)) {
        Ok(fast) => match &slow {
            Some(slow) if same(&fast, slow) => true,
            Some(slow) => {
                return Err(format!("direct reader {fast:?}, serde_json path {slow:?}"));
            }
            None => return Err(format!("only the direct reader takes it: {fast:?}")),
        },
        Err(GaveUp::Refused) if slow.is_some() => {
            return Err(format!("only the serde_json path takes it: {slow:?}"));
        }
        Err(_) => false,
    };
    if let Some(slow) = &slow {
        let plain = serde_json::from_str::<serde_json::Value>(text)
            .map_err(|e| format!("serde_json refuses what the readers take: {e}"))?;
        if !same_as_serde(slow, &plain) {
            return Err(format!("the readers give {slow:?}, serde_json {plain}"));
        }
    }
    let loaded = fast_json(text, None);
    let exact = match (&loaded, &slow) {
        (Some(a), Some(b)) => same(a, b),
        (a, b) => a.is_none() && b.is_none(),
    };
    if !exact {
        return Err(format!(
            "loading gives {loaded:?}, the serde_json path {slow:?}"
        ));
    }
    Ok(taken)
}

/// The same value, down to the kind of number, the sign of zero and the
/// order of keys.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::BigInt(x), Value::BigInt(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Str(x), Value::Str(y)) => **x == **y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| same(x, y))
        }
        (Value::Dict(x), Value::Dict(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((kx, vx), (ky, vy))| same(kx, ky) && same(vx, vy))
        }
        _ => false,
    }
}

/// `v` is what serde_json reads (with its keys in document order): an
/// integer of 64 bits or fewer where serde_json has one, a float where it
/// has one, bit for bit.
fn same_as_serde(v: &Value, j: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (v, j) {
        (Value::Null, J::Null) => true,
        (Value::Bool(x), J::Bool(y)) => x == y,
        (Value::Int(x), J::Number(n)) => n.as_i64() == Some(*x),
        (Value::BigInt(x), J::Number(n)) => n.as_u64().is_some_and(|u| **x == u.into()),
        (Value::Float(x), J::Number(n)) => {
            n.is_f64() && n.as_f64().is_some_and(|y| x.to_bits() == y.to_bits())
        }
        (Value::Str(x), J::String(y)) => **x == *y,
        (Value::List(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_as_serde(x, y))
        }
        (Value::Dict(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|((kx, vx), (ky, vy))| {
                    kx.as_str() == Some(ky.as_str()) && same_as_serde(vx, vy)
                })
        }
        _ => false,
    }
}
