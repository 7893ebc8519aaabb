//! The conformance JSON encoding of YAQL values (tags `$set`, `$dict`,
//! `$tuple`, `$datetime`, `$timedelta`, `$tz`, `$float`, `$bigint`), both
//! directions. Only the batch protocol speaks it; user data is plain JSON.

use serde_json::{Map, Number, Value as J};
use vetro_yaql::datetime::parse_iso;
use vetro_yaql::value::{Dict, Set};
use vetro_yaql::{Error, Result, Value};

const TAGS: [&str; 10] = [
    "$set",
    "$tuple",
    "$dict",
    "$datetime",
    "$timedelta",
    "$tz",
    "$float",
    "$bigint",
    "$unordered",
    "$opaque",
];

fn tag(k: &str, v: J) -> J {
    let mut m = Map::new();
    m.insert(k.to_string(), v);
    J::Object(m)
}

/// Decode an input value (lists stay lists: the reference freezes them to tuples).
pub fn decode(j: &J) -> Result<Value> {
    Ok(match j {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::from_bigint(u.into())
            } else {
                Value::Float(n.as_f64().unwrap_or(0.0))
            }
        }
        J::String(s) => Value::from(s.as_str()),
        J::Array(a) => Value::list(a.iter().map(decode).collect::<Result<_>>()?),
        J::Object(m) => {
            if m.len() == 1 {
                let (k, v) = m.iter().next().ok_or_else(|| Error::value_err("empty"))?;
                if TAGS.contains(&k.as_str()) {
                    return decode_tag(k, v);
                }
            }
            let mut d = Dict::with_capacity(m.len());
            for (k, v) in m {
                d.insert(Value::from(k.as_str()), decode(v)?);
            }
            Value::dict(d)
        }
    })
}

fn decode_tag(k: &str, v: &J) -> Result<Value> {
    let bad = || Error::value_err(format!("bad {k} value"));
    Ok(match k {
        "$set" | "$unordered" => {
            let a = v.as_array().ok_or_else(bad)?;
            let items: Vec<Value> = a.iter().map(decode).collect::<Result<_>>()?;
            if k == "$set" {
                Value::set(items.into_iter().collect::<Set>())
            } else {
                Value::list(items)
            }
        }
        "$tuple" => Value::list(
            v.as_array()
                .ok_or_else(bad)?
                .iter()
                .map(decode)
                .collect::<Result<_>>()?,
        ),
        "$dict" => {
            let mut d = Dict::new();
            for pair in v.as_array().ok_or_else(bad)? {
                let p = pair.as_array().ok_or_else(bad)?;
                if p.len() != 2 {
                    return Err(bad());
                }
                d.insert(decode(&p[0])?, decode(&p[1])?);
            }
            Value::dict(d)
        }
        "$datetime" => {
            let s = v.as_str().ok_or_else(bad)?;
            let d = parse_iso(s)?;
            Value::DateTime(d)
        }
        "$timedelta" => Value::TimeDelta(v.as_i64().ok_or_else(bad)?),
        "$tz" => Value::Tz(v.as_i64().ok_or_else(bad)? as i32),
        "$float" => Value::Float(match v.as_str().ok_or_else(bad)? {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => return Err(bad()),
        }),
        "$bigint" => Value::from_bigint(v.as_str().ok_or_else(bad)?.parse().map_err(|_| bad())?),
        _ => Value::Null,
    })
}

/// Bytes one encoded value takes at least besides its text (the JSON value
/// and its place in an array or object).
const NODE_BYTES: usize = 48;

fn take(left: &mut usize, bytes: usize) -> Result<()> {
    let bytes = bytes.saturating_add(NODE_BYTES);
    if bytes > *left {
        return Err(vetro_yaql::limits::memory_exceeded());
    }
    *left -= bytes;
    Ok(())
}

fn text(s: String, left: &mut usize) -> Result<J> {
    take(left, s.len())?;
    Ok(J::String(s))
}

/// Encode an (already finalized) value. `tuples`: keep lists as `$tuple`.
/// The encoding takes at most about `left` bytes (counted down), or fails
/// with the memory-limit error: a value that shares its containers
/// (`[$l, $l]` doubled) has far more encoded values than values.
pub fn encode(v: &Value, tuples: bool, left: &mut usize) -> Result<J> {
    take(left, 0)?;
    Ok(match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::Number((*i).into()),
        Value::BigInt(b) => tag("$bigint", text(b.to_string(), left)?),
        Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => J::Number(n),
            None => tag(
                "$float",
                J::String(
                    if f.is_nan() {
                        "nan"
                    } else if *f > 0.0 {
                        "inf"
                    } else {
                        "-inf"
                    }
                    .into(),
                ),
            ),
        },
        Value::Str(s) => text(s.to_string(), left)?,
        Value::List(l) => {
            let a = J::Array(encode_all(l.iter(), tuples, left)?);
            if tuples {
                tag("$tuple", a)
            } else {
                a
            }
        }
        Value::Set(s) => tag("$set", J::Array(encode_all(s.iter(), tuples, left)?)),
        Value::Dict(d) => {
            let plain = d.keys().all(|k| matches!(k, Value::Str(_)))
                && !(d.len() == 1
                    && d.keys()
                        .next()
                        .and_then(|k| k.as_str())
                        .is_some_and(|k| TAGS.contains(&k)));
            if plain {
                let mut m = Map::new();
                for (k, x) in d.iter() {
                    let k = k.as_str().unwrap_or("");
                    take(left, k.len())?;
                    m.insert(k.to_string(), encode(x, tuples, left)?);
                }
                J::Object(m)
            } else {
                let mut pairs = Vec::with_capacity(d.len());
                for (k, x) in d.iter() {
                    take(left, 0)?;
                    pairs.push(J::Array(vec![
                        encode(k, tuples, left)?,
                        encode(x, tuples, left)?,
                    ]));
                }
                tag("$dict", J::Array(pairs))
            }
        }
        Value::DateTime(d) => tag("$datetime", text(d.iso('T'), left)?),
        Value::TimeDelta(t) => tag("$timedelta", J::Number((*t).into())),
        Value::Tz(o) => tag("$tz", J::Number((*o).into())),
        other => tag("$opaque", J::String(other.type_name().to_string())),
    })
}

fn encode_all<'a>(
    items: impl Iterator<Item = &'a Value>,
    tuples: bool,
    left: &mut usize,
) -> Result<Vec<J>> {
    items.map(|x| encode(x, tuples, left)).collect()
}

/// Parse JSON text straight into a value (no intermediate tree), with the
/// same tag handling as [`decode`].
pub fn decode_str(text: &str) -> Result<Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let v = ValueSeed
        .deserialize(&mut de)
        .map_err(|e| Error::value_err(format!("bad JSON: {e}")))?;
    de.end()
        .map_err(|e| Error::value_err(format!("bad JSON: {e}")))?;
    Ok(v)
}

struct ValueSeed;

impl<'de> serde::de::DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> serde::de::Visitor<'de> for ValueVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, b: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> std::result::Result<Value, E> {
        Ok(Value::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> std::result::Result<Value, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::from_bigint(u.into()),
        })
    }
    fn visit_f64<E>(self, f: f64) -> std::result::Result<Value, E> {
        Ok(Value::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> std::result::Result<Value, E> {
        Ok(Value::from(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut a: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut v = Vec::with_capacity(a.size_hint().unwrap_or(0));
        while let Some(x) = a.next_element_seed(ValueSeed)? {
            v.push(x);
        }
        Ok(Value::list(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut a: A,
    ) -> std::result::Result<Value, A::Error> {
        use serde::de::Error as _;
        let mut d = Dict::new();
        let Some(first) = a.next_key::<String>()? else {
            return Ok(Value::dict(d));
        };
        if TAGS.contains(&first.as_str()) {
            let raw: J = a.next_value()?;
            match a.next_key::<String>()? {
                None => {
                    return decode_tag(&first, &raw).map_err(|e| A::Error::custom(e.into_message()))
                }
                Some(k2) => {
                    d.insert(
                        Value::from(first.as_str()),
                        decode(&raw).map_err(|e| A::Error::custom(e.into_message()))?,
                    );
                    d.insert(Value::from(k2.as_str()), a.next_value_seed(ValueSeed)?);
                }
            }
        } else {
            d.insert(Value::from(first.as_str()), a.next_value_seed(ValueSeed)?);
        }
        while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
            d.insert(Value::from(&*k), a.next_value_seed(ValueSeed)?);
        }
        Ok(Value::dict(d))
    }
}
