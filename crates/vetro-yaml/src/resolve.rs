//! Implicit typing of plain scalars under the YAML 1.1 (PyYAML) and 1.2 core schemas.

use vetro_pycompat::int::{radix_to_decimal, RadixError, MAX_INT_DIGITS};

/// Which schema resolves plain scalars.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum YamlVersion {
    /// PyYAML's resolver: `yes/no/on/off` booleans, `017` octal, sexagesimal numbers.
    #[default]
    V1_1,
    /// The YAML 1.2 core schema.
    V1_2,
}

impl std::str::FromStr for YamlVersion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "1.1" => Ok(YamlVersion::V1_1),
            "1.2" => Ok(YamlVersion::V1_2),
            other => Err(format!(
                "unknown YAML version `{other}` (expected 1.1 or 1.2)"
            )),
        }
    }
}

/// What a plain scalar means.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    BigInt(String),
    /// An integer of about `digits` decimal digits, more than
    /// [`MAX_INT_DIGITS`]: reading it would take too long.
    IntTooLong {
        digits: usize,
    },
    Float(f64),
    Str,
}

/// Resolve a plain (unquoted, untagged) scalar.
pub fn resolve_plain(text: &str, version: YamlVersion) -> Resolved {
    match version {
        YamlVersion::V1_1 => resolve_11(text),
        YamlVersion::V1_2 => resolve_12(text),
    }
}

fn resolve_11(s: &str) -> Resolved {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true)
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false)
        }
        _ => {}
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'.')) {
        return Resolved::Str;
    }
    int_11(s)
        .or_else(|| float_11(s).map(Resolved::Float))
        .unwrap_or(Resolved::Str)
}

/// Splits an optional sign; returns (negative, rest).
fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn all(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    !s.is_empty() && s.bytes().all(ok)
}

/// Integers of PyYAML's 1.1 resolver: binary, octal (`017`), decimal, hex,
/// sexagesimal (`1:30`), with `_` separators.
fn int_11(s: &str) -> Option<Resolved> {
    let (neg, body) = split_sign(s);
    let digits_of = |t: &str| t.replace('_', "");
    let (radix, digits) = if let Some(rest) = body.strip_prefix("0b") {
        if !all(rest, |b| matches!(b, b'0' | b'1' | b'_')) {
            return None;
        }
        (2, digits_of(rest))
    } else if let Some(rest) = body.strip_prefix("0x") {
        if !all(rest, |b| b.is_ascii_hexdigit() || b == b'_') {
            return None;
        }
        (16, digits_of(rest))
    } else if body == "0" {
        (10, "0".to_string())
    } else if let Some(rest) = body.strip_prefix('0') {
        if !all(rest, |b| matches!(b, b'0'..=b'7' | b'_')) {
            return None;
        }
        (8, digits_of(rest))
    } else if body.contains(':') {
        return sexagesimal_int(neg, body);
    } else {
        if !body
            .as_bytes()
            .first()
            .is_some_and(|b| matches!(b, b'1'..=b'9'))
            || !all(body, |b| b.is_ascii_digit() || b == b'_')
        {
            return None;
        }
        (10, digits_of(body))
    };
    if digits.is_empty() {
        // `0b_`, `0x_` and `0_` match the 1.1 pattern and mean zero.
        return Some(Resolved::Int(0));
    }
    Some(make_int(neg, &digits, radix))
}

fn make_int(neg: bool, digits: &str, radix: u32) -> Resolved {
    if let Ok(v) = i128::from_str_radix(digits, radix) {
        let v = if neg { -v } else { v };
        return match i64::try_from(v) {
            Ok(i) => Resolved::Int(i),
            Err(_) => Resolved::BigInt(v.to_string()),
        };
    }
    // Too big for i128, so not all zeros.
    let digits = digits.trim_start_matches('0');
    let decimal = if radix == 10 {
        if digits.len() > MAX_INT_DIGITS {
            return Resolved::IntTooLong {
                digits: digits.len(),
            };
        }
        digits.to_string()
    } else {
        match radix_to_decimal(digits, radix) {
            Ok(text) => text,
            Err(RadixError::TooLong { digits }) => return Resolved::IntTooLong { digits },
            // The callers pass digits of `radix` only.
            Err(RadixError::NotADigit) => return Resolved::Str,
        }
    };
    Resolved::BigInt(if neg { format!("-{decimal}") } else { decimal })
}

/// `[1-9][0-9_]*(:[0-5]?[0-9])+`
fn sexagesimal_parts(body: &str) -> Option<(&str, Vec<u32>)> {
    let mut parts = body.split(':');
    let head = parts.next()?;
    let mut tail = Vec::new();
    for p in parts {
        let ok = matches!(p.len(), 1 | 2)
            && p.bytes().all(|b| b.is_ascii_digit())
            && (p.len() == 1 || p.as_bytes()[0] <= b'5');
        if !ok {
            return None;
        }
        tail.push(p.parse().ok()?);
    }
    if tail.is_empty() {
        return None;
    }
    Some((head, tail))
}

fn sexagesimal_int(neg: bool, body: &str) -> Option<Resolved> {
    let (head, tail) = sexagesimal_parts(body)?;
    if !head
        .as_bytes()
        .first()
        .is_some_and(|b| matches!(b, b'1'..=b'9'))
        || !all(head, |b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    let mut value: i128 = head.replace('_', "").parse().ok()?;
    for part in tail {
        value = value.checked_mul(60)?.checked_add(part as i128)?;
    }
    let value = if neg { -value } else { value };
    Some(match i64::try_from(value) {
        Ok(i) => Resolved::Int(i),
        Err(_) => Resolved::BigInt(value.to_string()),
    })
}

/// Floats of PyYAML's 1.1 resolver. A dot is required; an exponent needs a sign.
fn float_11(s: &str) -> Option<f64> {
    let (neg, body) = split_sign(s);
    let sign = if neg { -1.0 } else { 1.0 };
    match body {
        ".inf" | ".Inf" | ".INF" => return Some(sign * f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" if s == body => return Some(f64::NAN),
        _ => {}
    }
    if body.contains(':') {
        // [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
        let (int_part, frac) = body.rsplit_once('.')?;
        if !frac.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
            return None;
        }
        let (head, tail) = sexagesimal_parts(int_part)?;
        if !head.as_bytes().first().is_some_and(u8::is_ascii_digit)
            || !all(head, |b| b.is_ascii_digit() || b == b'_')
        {
            return None;
        }
        let mut value: f64 = head.replace('_', "").parse().ok()?;
        for part in tail {
            value = value * 60.0 + part as f64;
        }
        let frac = frac.replace('_', "");
        if !frac.is_empty() {
            value += format!("0.{frac}").parse::<f64>().ok()?;
        }
        return Some(sign * value);
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int_part, frac) = mantissa.split_once('.')?;
    if int_part.is_empty() {
        // `\.[0-9][0-9_]*` and no sign allowed before it.
        if neg || s.starts_with('+') || !frac.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
    } else if !int_part.as_bytes()[0].is_ascii_digit()
        || !int_part.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return None;
    }
    if let Some(exp) = exponent {
        let (_, digits) = split_sign(exp);
        if !matches!(exp.as_bytes().first(), Some(b'+' | b'-'))
            || !all(digits, |b| b.is_ascii_digit())
        {
            return None;
        }
    }
    let cleaned: String = mantissa.chars().filter(|&c| c != '_').collect();
    let mut text = if cleaned.ends_with('.') {
        format!("{cleaned}0")
    } else {
        cleaned
    };
    if text.starts_with('.') {
        text.insert(0, '0');
    }
    if let Some(exp) = exponent {
        text.push('e');
        text.push_str(exp);
    }
    text.parse::<f64>().ok().map(|v| sign * v)
}

fn resolve_12(s: &str) -> Resolved {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        _ => {}
    }
    let (neg, body) = split_sign(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return Resolved::Float(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if s == body {
        if let Some(oct) = s.strip_prefix("0o") {
            if all(oct, |b| matches!(b, b'0'..=b'7')) {
                return make_int(false, oct, 8);
            }
        }
        if let Some(hex) = s.strip_prefix("0x") {
            if all(hex, |b| b.is_ascii_hexdigit()) {
                return make_int(false, hex, 16);
            }
        }
    }
    if all(body, |b| b.is_ascii_digit()) {
        return make_int(neg, body, 10);
    }
    // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => all(frac, |b| b.is_ascii_digit()),
        Some((int, frac)) => {
            all(int, |b| b.is_ascii_digit()) && frac.bytes().all(|b| b.is_ascii_digit())
        }
        None => all(mantissa, |b| b.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| all(split_sign(e).1, |b| b.is_ascii_digit()));
    if mantissa_ok && exponent_ok {
        if let Ok(v) = s.parse::<f64>() {
            return Resolved::Float(v);
        }
    }
    Resolved::Str
}

#[cfg(test)]
mod tests {
    use super::*;
    use Resolved::*;

    fn r11(s: &str) -> Resolved {
        resolve_plain(s, YamlVersion::V1_1)
    }

    #[test]
    fn booleans_follow_pyyaml() {
        for t in [
            "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE",
        ] {
            assert_eq!(r11(t), Bool(true), "{t}");
        }
        for f in [
            "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE",
        ] {
            assert_eq!(r11(f), Bool(false), "{f}");
        }
        // PyYAML's resolver leaves these as strings.
        for s in ["y", "n", "Y", "N", "yES", "tRUE"] {
            assert_eq!(r11(s), Str, "{s}");
        }
    }

    #[test]
    fn integers_of_yaml_11() {
        assert_eq!(r11("017"), Int(15));
        assert_eq!(r11("0x1F"), Int(31));
        assert_eq!(r11("0b101"), Int(5));
        assert_eq!(r11("1_000"), Int(1000));
        assert_eq!(r11("-42"), Int(-42));
        assert_eq!(r11("1:30"), Int(90));
        assert_eq!(r11("0"), Int(0));
        assert_eq!(r11("08"), Str);
        assert_eq!(r11("0o17"), Str);
        assert_eq!(
            r11("-0x1_0000_0000_0000_0000_0000_0000_0000_0000"),
            BigInt("-340282366920938463463374607431768211456".into())
        );
        assert_eq!(
            r11(&format!("0b{}", "1".repeat(3_400_000))),
            IntTooLong { digits: 1_023_502 }
        );
        assert_eq!(
            r11("123456789012345678901234567890"),
            BigInt("123456789012345678901234567890".into())
        );
    }

    #[test]
    fn floats_of_yaml_11() {
        assert_eq!(r11("1.5"), Float(1.5));
        assert_eq!(r11("1."), Float(1.0));
        assert_eq!(r11(".5"), Float(0.5));
        assert_eq!(r11("1.0e+3"), Float(1000.0));
        assert_eq!(r11("1e3"), Str);
        assert_eq!(r11("1.0e3"), Str);
        assert_eq!(r11("-.inf"), Float(f64::NEG_INFINITY));
        assert_eq!(r11("1:30.5"), Float(90.5));
        assert_eq!(r11("1_0.2_5"), Float(10.25));
        assert!(matches!(r11(".nan"), Float(f) if f.is_nan()));
    }

    #[test]
    fn nulls_and_strings() {
        assert_eq!(r11("~"), Null);
        assert_eq!(r11(""), Null);
        assert_eq!(r11("None"), Str);
        assert_eq!(r11("1.2.3"), Str);
        assert_eq!(r11("-"), Str);
        assert_eq!(r11("+.5"), Str);
    }

    #[test]
    fn core_schema_of_yaml_12() {
        let r12 = |s| resolve_plain(s, YamlVersion::V1_2);
        assert_eq!(r12("yes"), Str);
        assert_eq!(r12("0o17"), Int(15));
        assert_eq!(r12("017"), Int(17));
        assert_eq!(r12("1e3"), Float(1000.0));
        assert_eq!(r12("1_000"), Str);
    }
}
