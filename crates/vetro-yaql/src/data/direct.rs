//! A single pass over JSON bytes that builds values as it reads, for the
//! common document: plain strings, integers of up to 18 digits, short
//! decimals. Anything else it meets (an escape, an exponent, a long number)
//! is read by serde_json for that one token; anything wrong (a syntax error,
//! a duplicate key, deep nesting) makes it give up, and the caller reads the
//! document again the slower ways, which report errors with their position.

use super::{number_from_serde, Building, Duplicate, Key, Loader};
use crate::value::Value;
use std::borrow::Cow;

/// Why the reader did not take a document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum GaveUp {
    /// Not JSON, a duplicate key, or a number that is not exact.
    Refused,
    /// Nested past [`MAX_DEPTH`]: left to serde_json, whatever it is.
    TooDeep,
}

/// The value of `text`, or why this reader cannot take it exactly.
pub(super) fn parse(text: &str, loader: &mut Loader) -> Result<Value, GaveUp> {
    let mut r = Reader {
        text,
        b: text.as_bytes(),
        pos: 0,
        depth: 0,
        too_deep: false,
        loader,
    };
    let v = r.value();
    r.skip_ws();
    match v {
        Some(v) if r.pos == r.b.len() => Ok(v),
        _ if r.too_deep => Err(GaveUp::TooDeep),
        _ => Err(GaveUp::Refused),
    }
}

struct Reader<'t, 'l, 'p> {
    text: &'t str,
    b: &'t [u8],
    pos: usize,
    /// Containers open around the reader.
    depth: usize,
    /// Whether it gave up on nesting past [`MAX_DEPTH`].
    too_deep: bool,
    loader: &'l mut Loader<'p>,
}

/// Below serde_json's limit: deeper documents are left to it (which refuses
/// them as it does today).
const MAX_DEPTH: usize = 100;

/// Powers of ten that are exact as `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that is `"`, `\` or a control
/// character; exact for the lowest such byte (little-endian order), which
/// is all the caller uses.
fn specials(w: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    zero(w ^ (ONES * b'"' as u64))
        | zero(w ^ (ONES * b'\\' as u64))
        | (w.wrapping_sub(ONES * 0x20) & !w & HIGHS)
}

impl<'t> Reader<'t, '_, '_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next byte after white space, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.b.get(self.pos).copied()
    }

    fn value(&mut self) -> Option<Value> {
        match self.peek()? {
            b'"' => {
                let s = self.string()?;
                Some(self.loader.string(&s))
            }
            b'{' => self.nested(Self::object),
            b'[' => self.nested(Self::array),
            b't' => self.word(b"true", Value::Bool(true)),
            b'f' => self.word(b"false", Value::Bool(false)),
            b'n' => self.word(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Option<Value>) -> Option<Value> {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return None;
        }
        self.depth += 1;
        self.pos += 1;
        let v = read(self);
        self.depth -= 1;
        v
    }

    fn word(&mut self, word: &[u8], v: Value) -> Option<Value> {
        let end = self.pos + word.len();
        (self.b.get(self.pos..end)? == word).then(|| {
            self.pos = end;
            v
        })
    }

    /// A string, the reader at its opening quote.
    fn string(&mut self) -> Option<Cow<'t, str>> {
        let start = self.pos + 1;
        let mut i = start;
        while let Some(chunk) = self.b.get(i..i + 8) {
            let found = specials(u64::from_le_bytes(chunk.try_into().ok()?));
            if found != 0 {
                i += found.trailing_zeros() as usize / 8;
                return self.string_end(start, i);
            }
            i += 8;
        }
        while *self.b.get(i)? != b'"' && self.b[i] != b'\\' && self.b[i] >= 0x20 {
            i += 1;
        }
        self.string_end(start, i)
    }

    /// The string from `start`, its first special byte at `i`.
    fn string_end(&mut self, start: usize, i: usize) -> Option<Cow<'t, str>> {
        match self.b[i] {
            b'"' => {
                self.pos = i + 1;
                Some(Cow::Borrowed(&self.text[start..i]))
            }
            b'\\' => self.escaped(start, i),
            // A control character: refused by JSON.
            _ => None,
        }
    }

    /// A string with escapes (the first at `i`), decoded by serde_json.
    fn escaped(&mut self, start: usize, mut i: usize) -> Option<Cow<'t, str>> {
        loop {
            match *self.b.get(i)? {
                b'"' => break,
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        let s = serde_json::from_str::<String>(self.text.get(start - 1..=i)?).ok()?;
        self.pos = i + 1;
        Some(Cow::Owned(s))
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        let negative = self.b[start] == b'-';
        let mut i = start + usize::from(negative);
        let digits_from = i;
        let mut significand: u64 = 0;
        let mut digits = 0;
        while let Some(d @ b'0'..=b'9') = self.b.get(i) {
            significand = significand
                .wrapping_mul(10)
                .wrapping_add(u64::from(d - b'0'));
            i += 1;
        }
        digits += i - digits_from;
        // `01` and `-` are not JSON numbers.
        if digits == 0 || (digits > 1 && self.b[digits_from] == b'0') {
            return None;
        }
        let mut decimals = 0;
        if self.b.get(i) == Some(&b'.') {
            i += 1;
            let from = i;
            while let Some(d @ b'0'..=b'9') = self.b.get(i) {
                significand = significand
                    .wrapping_mul(10)
                    .wrapping_add(u64::from(d - b'0'));
                i += 1;
            }
            decimals = i - from;
            if decimals == 0 {
                return None;
            }
            digits += decimals;
        }
        if digits > 18 || matches!(self.b.get(i), Some(b'e' | b'E')) {
            return self.number_by_serde(start);
        }
        self.pos = i;
        if decimals == 0 {
            return Some(match (negative, significand) {
                // serde_json reads `-0` as a float.
                (true, 0) => Value::Float(-0.0),
                (true, s) => Value::Int(-(s as i64)),
                (false, s) => Value::Int(s as i64),
            });
        }
        // Both exact, so the quotient is the correctly rounded value,
        // which is what serde_json (float_roundtrip) gives.
        if significand >= 1 << 53 || decimals >= POW10.len() {
            return self.number_by_serde(start);
        }
        let f = significand as f64 / POW10[decimals];
        Some(Value::Float(if negative { -f } else { f }))
    }

    /// The number at `start` read by serde_json (a long one, or one with
    /// an exponent).
    fn number_by_serde(&mut self, start: usize) -> Option<Value> {
        let mut i = start;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.b.get(i) {
            i += 1;
        }
        let n = serde_json::from_str::<serde_json::Number>(&self.text[start..i]).ok()?;
        self.pos = i;
        number_from_serde(&n)
    }

    /// A list, the reader past its `[`.
    fn array(&mut self) -> Option<Value> {
        let start = self.loader.items.len();
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(self.loader.list_from(start));
        }
        loop {
            let v = self.value()?;
            self.loader.items.push(v);
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => break,
                _ => return None,
            }
        }
        self.pos += 1;
        Some(self.loader.list_from(start))
    }

    /// The key at the reader (at its opening quote) when it is one that
    /// followed the same keys before, matched where it lies in the text
    /// without looking for its end first; the reader is then past it.
    fn expected_key(&mut self, building: &Building) -> Option<Key> {
        let (next, len) = self
            .loader
            .expected(building.shape()?, &self.b[self.pos + 1..])?;
        self.pos += len + 2;
        Some(Key::Shape(next))
    }

    /// A dictionary, the reader past its `{`.
    fn object(&mut self) -> Option<Value> {
        let start = self.loader.items.len();
        let mut building = Building::Shaped(0);
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(self.loader.dict_from(building, start));
        }
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let key = match self.expected_key(&building) {
                Some(key) => key,
                None => {
                    let k = self.string()?;
                    self.loader.key(building.shape(), &k).ok()?
                }
            };
            self.loader.reached(self.pos);
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            let v = self.value()?;
            if let (Building::Shaped(shape), Key::Shape(next)) = (&mut building, &key) {
                // The common step of `put`, taken here without a call.
                *shape = *next;
                self.loader.items.push(v);
            } else {
                self.loader
                    .put(&mut building, start, key, v)
                    .map_err(|Duplicate| ())
                    .ok()?;
            }
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => break,
                _ => return None,
            }
        }
        self.pos += 1;
        Some(self.loader.dict_from(building, start))
    }
}
