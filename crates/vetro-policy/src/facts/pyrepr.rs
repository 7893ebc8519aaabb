//! Python `str()` and `repr()` of YAML values, the way the reference printed
//! property values (it formats the PyYAML-loaded value with `str.format`).

use super::value::MValue;
use vetro_pycompat::repr::{float_repr, str_repr};
use vetro_pycompat::time::days_in_month;

/// A plain scalar that PyYAML's 1.1 resolver would read as a timestamp.
#[derive(Debug, Clone, PartialEq)]
pub enum Timestamp {
    Date(i32, u32, u32),
    /// Date, time, microseconds, and the UTC offset text (`+05:00`) if any.
    DateTime {
        date: (i32, u32, u32),
        time: (u32, u32, u32),
        micros: Option<u32>,
        offset: Option<String>,
    },
}

/// Recognises `YYYY-MM-DD` and `YYYY-M-D[Tt ]H:MM:SS[.frac][Z|±H[:MM]]`.
pub fn timestamp(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() < 8 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let year: i32 = text[..4].parse().ok()?;
    let mut i = 5;
    let month = digits(b, &mut i, 1, 2)?;
    if b.get(i) != Some(&b'-') {
        return None;
    }
    i += 1;
    let day = digits(b, &mut i, 1, 2)?;
    if i == b.len() {
        // A bare date needs exactly two digits for month and day.
        if text.len() != 10 {
            return None;
        }
        return valid_date(year, month, day).then_some(Timestamp::Date(year, month, day));
    }
    match b[i] {
        b'T' | b't' => i += 1,
        b' ' | b'\t' => {
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
        }
        _ => return None,
    }
    let hour = digits(b, &mut i, 1, 2)?;
    expect(b, &mut i, b':')?;
    let minute = digits(b, &mut i, 2, 2)?;
    expect(b, &mut i, b':')?;
    let second = digits(b, &mut i, 2, 2)?;
    let mut micros = None;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let frac = &text[start..i];
        let mut six: String = frac.chars().take(6).collect();
        while six.len() < 6 {
            six.push('0');
        }
        micros = Some(six.parse().ok()?);
    }
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    let mut offset = None;
    if i < b.len() {
        match b[i] {
            b'Z' => {
                i += 1;
                offset = Some("+00:00".to_string());
            }
            b'+' | b'-' => {
                let sign = b[i] as char;
                i += 1;
                let h = digits(b, &mut i, 1, 2)?;
                let mut m = 0;
                if b.get(i) == Some(&b':') {
                    i += 1;
                    m = digits(b, &mut i, 2, 2)?;
                }
                offset = Some(format!("{sign}{h:02}:{m:02}"));
            }
            _ => return None,
        }
    }
    if i != b.len() || !valid_date(year, month, day) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(Timestamp::DateTime {
        date: (year, month, day),
        time: (hour, minute, second),
        micros,
        offset,
    })
}

fn digits(b: &[u8], i: &mut usize, min: usize, max: usize) -> Option<u32> {
    let start = *i;
    while *i < b.len() && *i - start < max && b[*i].is_ascii_digit() {
        *i += 1;
    }
    if *i - start < min {
        return None;
    }
    std::str::from_utf8(&b[start..*i]).ok()?.parse().ok()
}

fn expect(b: &[u8], i: &mut usize, c: u8) -> Option<()> {
    if b.get(*i) == Some(&c) {
        *i += 1;
        Some(())
    } else {
        None
    }
}

fn valid_date(y: i32, m: u32, d: u32) -> bool {
    y >= 1 && d >= 1 && i64::from(d) <= days_in_month(y.into(), m.into())
}

impl Timestamp {
    fn str(&self) -> String {
        match self {
            Timestamp::Date(y, m, d) => format!("{y:04}-{m:02}-{d:02}"),
            Timestamp::DateTime {
                date: (y, mo, d),
                time: (h, mi, s),
                micros,
                offset,
            } => {
                let mut out = format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}");
                if let Some(us) = micros.filter(|&us| us != 0) {
                    out.push_str(&format!(".{us:06}"));
                }
                if let Some(off) = offset {
                    out.push_str(off);
                }
                out
            }
        }
    }

    fn repr(&self) -> String {
        match self {
            Timestamp::Date(y, m, d) => format!("datetime.date({y}, {m}, {d})"),
            Timestamp::DateTime {
                date: (y, mo, d),
                time: (h, mi, s),
                micros,
                offset,
            } => {
                let mut args = format!("{y}, {mo}, {d}, {h}, {mi}");
                let us = micros.unwrap_or(0);
                if *s != 0 || us != 0 {
                    args.push_str(&format!(", {s}"));
                }
                if us != 0 {
                    args.push_str(&format!(", {us}"));
                }
                if offset.is_some() {
                    // PyYAML attaches a fixed-offset tzinfo; its repr is long and rare.
                    args.push_str(", tzinfo=<tz>");
                }
                format!("datetime.datetime({args})")
            }
        }
    }
}

/// The timestamp a value means, when it is a plain string that looks like one.
fn value_timestamp(v: &MValue) -> Option<Timestamp> {
    match v {
        MValue::Str { text, plain: true } => timestamp(text),
        _ => None,
    }
}

/// Python `str()` of a scalar; `None` for collections.
fn scalar_str(v: &MValue) -> Option<String> {
    Some(match v {
        MValue::Null => "None".into(),
        MValue::Bool(true) => "True".into(),
        MValue::Bool(false) => "False".into(),
        MValue::Int(i) => i.to_string(),
        MValue::BigInt(s) => s.clone(),
        MValue::Float(f) => float_repr(*f),
        MValue::Str { text, .. } => text.clone(),
        MValue::Seq(_) | MValue::Map(_) => return None,
    })
}

/// Python `str()` of a value.
pub fn py_str(v: &MValue) -> String {
    if let Some(ts) = value_timestamp(v) {
        return ts.str();
    }
    match scalar_str(v) {
        Some(text) => text,
        None => py_repr(v),
    }
}

/// Python `repr()` of a value (lists and dicts render their items with repr).
pub fn py_repr(v: &MValue) -> String {
    let mut out = String::new();
    write_repr(v, &mut out);
    out
}

fn write_repr(v: &MValue, out: &mut String) {
    if let Some(ts) = value_timestamp(v) {
        out.push_str(&ts.repr());
        return;
    }
    match v {
        MValue::Str { text, .. } => out.push_str(&str_repr(text)),
        MValue::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        MValue::Map(entries) => {
            out.push('{');
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, out);
                out.push_str(": ");
                write_repr(val, out);
            }
            out.push('}');
        }
        _ => out.push_str(&scalar_str(v).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_datetimes() {
        assert_eq!(timestamp("2020-01-31"), Some(Timestamp::Date(2020, 1, 31)));
        assert_eq!(timestamp("2020-1-31"), None);
        assert_eq!(timestamp("2020-02-30"), None);
        let ts = timestamp("2001-12-14t21:59:43.10-05:00").map(|t| t.str());
        assert_eq!(ts.as_deref(), Some("2001-12-14 21:59:43.100000-05:00"));
        let ts = timestamp("2001-12-14 21:59:43").map(|t| t.str());
        assert_eq!(ts.as_deref(), Some("2001-12-14 21:59:43"));
    }

    #[test]
    fn collections_repr_their_items() {
        let text = |t: &str| MValue::Str {
            text: t.into(),
            plain: false,
        };
        let v = MValue::Seq(vec![text("it's"), MValue::Float(1e16), MValue::Null]);
        assert_eq!(py_repr(&v), "[\"it's\", 1e+16, None]");
        assert_eq!(py_str(&MValue::Float(0.1)), "0.1");
    }
}
