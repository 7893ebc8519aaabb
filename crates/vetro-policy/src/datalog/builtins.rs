//! The builtin tables of Congress: comparisons, arithmetic, strings, datetimes,
//! network addresses and option-type validation. A builtin takes its first
//! `inputs` arguments and computes the rest.

use super::value::{Symbols, Value};
use std::net::IpAddr;
use vetro_pycompat::time::{DateTime as PyDateTime, Parts, US_PER_SEC};

/// Name, number of arguments and number of inputs of every builtin.
const TABLE: &[(&str, usize, usize)] = &[
    ("lt", 2, 2),
    ("lteq", 2, 2),
    ("equal", 2, 2),
    ("gt", 2, 2),
    ("gteq", 2, 2),
    ("max", 3, 2),
    ("plus", 3, 2),
    ("minus", 3, 2),
    ("mul", 3, 2),
    ("div", 3, 2),
    ("float", 2, 1),
    ("int", 2, 1),
    ("concat", 3, 2),
    ("len", 2, 1),
    ("now", 1, 0),
    ("unpack_date", 4, 1),
    ("unpack_time", 4, 1),
    ("unpack_datetime", 7, 1),
    ("pack_time", 4, 3),
    ("pack_date", 4, 3),
    ("pack_datetime", 7, 6),
    ("extract_date", 2, 1),
    ("extract_time", 2, 1),
    ("datetime_to_seconds", 2, 1),
    ("datetime_plus", 3, 2),
    ("datetime_minus", 3, 2),
    ("datetime_lt", 2, 2),
    ("datetime_lteq", 2, 2),
    ("datetime_gt", 2, 2),
    ("datetime_gteq", 2, 2),
    ("datetime_equal", 2, 2),
    ("ips_equal", 2, 2),
    ("ips_lt", 2, 2),
    ("ips_lteq", 2, 2),
    ("ips_gt", 2, 2),
    ("ips_gteq", 2, 2),
    ("networks_equal", 2, 2),
    ("networks_overlap", 2, 2),
    ("ip_in_network", 2, 2),
    ("validate_int", 4, 3),
    ("validate_float", 4, 3),
    ("validate_string", 6, 5),
];

/// A builtin's signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Builtin {
    pub name: &'static str,
    pub arity: usize,
    pub inputs: usize,
}

/// The builtin a literal names, if any: unqualified or `builtin:` names with the right arity.
pub fn lookup(module: Option<&str>, table: &str, arity: usize) -> Option<Builtin> {
    if !matches!(module, None | Some("builtin")) {
        return None;
    }
    TABLE
        .iter()
        .find(|(n, a, _)| *n == table && *a == arity)
        .map(|&(name, arity, inputs)| Builtin {
            name,
            arity,
            inputs,
        })
}

/// Whether `builtin:name` exists with some arity (for unknown-builtin errors).
pub fn exists(name: &str) -> bool {
    TABLE.iter().any(|(n, _, _)| *n == name)
}

fn cmp(a: Value, b: Value, syms: &Symbols) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(syms.get(x).cmp(syms.get(y))),
        (Value::Str(_), _) | (_, Value::Str(_)) => None,
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(&y)),
        (x, y) => x.as_f64()?.partial_cmp(&y.as_f64()?),
    }
}

fn truth(b: bool) -> Option<Vec<Value>> {
    b.then(Vec::new)
}

fn arith(a: Value, b: Value, op: char) -> Option<Value> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(Value::Int(match op {
            '+' => x.checked_add(y)?,
            '-' => x.checked_sub(y)?,
            '*' => x.checked_mul(y)?,
            _ => floor_div(x, y)?,
        })),
        (x, y) => {
            let (x, y) = (x.as_f64()?, y.as_f64()?);
            Some(Value::Float(match op {
                '+' => x + y,
                '-' => x - y,
                '*' => x * y,
                _ => {
                    if y == 0.0 {
                        return None;
                    }
                    x / y
                }
            }))
        }
    }
}

/// Python floor division of integers.
fn floor_div(x: i64, y: i64) -> Option<i64> {
    if y == 0 {
        return None;
    }
    let q = x / y;
    Some(if (x % y != 0) && ((x < 0) != (y < 0)) {
        q - 1
    } else {
        q
    })
}

/// Python `str()` of a value (strings unquoted).
fn py_str(v: Value, syms: &Symbols) -> String {
    match v {
        Value::Str(s) => syms.get(s).to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => vetro_pycompat::repr::float_repr(f),
    }
}

/// Evaluates a builtin on its inputs; `None` means the literal is false
/// (including type errors, which make the reference's query fail).
pub fn eval(b: Builtin, inputs: &[Value], syms: &mut Symbols) -> Option<Vec<Value>> {
    use std::cmp::Ordering::*;
    let a = inputs.first().copied();
    let b2 = inputs.get(1).copied();
    let two = || Some((a?, b2?));
    match b.name {
        "lt" => {
            let (x, y) = two()?;
            truth(cmp(x, y, syms)? == Less)
        }
        "lteq" => {
            let (x, y) = two()?;
            truth(cmp(x, y, syms)? != Greater)
        }
        "gt" => {
            let (x, y) = two()?;
            truth(cmp(x, y, syms)? == Greater)
        }
        "gteq" => {
            let (x, y) = two()?;
            truth(cmp(x, y, syms)? != Less)
        }
        "equal" => {
            let (x, y) = two()?;
            truth(x == y)
        }
        "max" => {
            let (x, y) = two()?;
            Some(vec![if cmp(y, x, syms)? == Greater { y } else { x }])
        }
        "plus" => {
            let (x, y) = two()?;
            if let (Value::Str(s), Value::Str(t)) = (x, y) {
                let joined = format!("{}{}", syms.get(s), syms.get(t));
                return Some(vec![Value::Str(syms.intern(&joined))]);
            }
            Some(vec![arith(x, y, '+')?])
        }
        "minus" => {
            let (x, y) = two()?;
            Some(vec![arith(x, y, '-')?])
        }
        "mul" => {
            let (x, y) = two()?;
            Some(vec![arith(x, y, '*')?])
        }
        "div" => {
            let (x, y) = two()?;
            match (x, y) {
                (Value::Int(p), Value::Int(q)) => Some(vec![Value::Int(floor_div(p, q)?)]),
                _ => Some(vec![arith(x, y, '/')?]),
            }
        }
        "float" => Some(vec![Value::Float(to_float(a?, syms)?)]),
        "int" => Some(vec![Value::Int(to_int(a?, syms)?)]),
        "concat" => {
            let (x, y) = two()?;
            match (x, y) {
                (Value::Str(s), Value::Str(t)) => {
                    let joined = format!("{}{}", syms.get(s), syms.get(t));
                    Some(vec![Value::Str(syms.intern(&joined))])
                }
                _ => Some(vec![arith(x, y, '+')?]),
            }
        }
        "len" => match a? {
            Value::Str(s) => Some(vec![Value::Int(syms.get(s).chars().count() as i64)]),
            _ => None,
        },
        "now" => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?
                .as_secs() as i64;
            let dt = DateTime::from_seconds(secs)?;
            Some(vec![Value::Str(syms.intern(&dt.to_string()))])
        }
        _ => eval_more(b, inputs, syms),
    }
}

fn eval_more(b: Builtin, inputs: &[Value], syms: &mut Symbols) -> Option<Vec<Value>> {
    let s = |i: usize, syms: &Symbols| -> Option<String> {
        match inputs.get(i)? {
            Value::Str(x) => Some(syms.get(*x).to_string()),
            _ => None,
        }
    };
    let dt = |i: usize, syms: &Symbols| DateTime::parse(&s(i, syms)?);
    let out_str = |text: String, syms: &mut Symbols| Some(vec![Value::Str(syms.intern(&text))]);
    let ints = |vals: &[i64]| Some(vals.iter().map(|&v| Value::Int(v)).collect::<Vec<_>>());
    match b.name {
        "unpack_date" => {
            let d = dt(0, syms)?.parts();
            ints(&[d.year, d.month, d.day])
        }
        "unpack_time" => {
            let d = dt(0, syms)?.parts();
            ints(&[d.hour, d.minute, d.second])
        }
        "unpack_datetime" => {
            let d = dt(0, syms)?.parts();
            ints(&[d.year, d.month, d.day, d.hour, d.minute, d.second])
        }
        "pack_time" => {
            let v: Vec<String> = inputs.iter().map(|&v| py_str(v, syms)).collect();
            out_str(format!("{}:{}:{}", v.first()?, v.get(1)?, v.get(2)?), syms)
        }
        "pack_date" => {
            let v: Vec<String> = inputs.iter().map(|&v| py_str(v, syms)).collect();
            out_str(format!("{}-{}-{}", v.first()?, v.get(1)?, v.get(2)?), syms)
        }
        "pack_datetime" => {
            let v: Vec<String> = inputs.iter().map(|&v| py_str(v, syms)).collect();
            if v.len() < 6 {
                return None;
            }
            out_str(
                format!("{}-{}-{} {}:{}:{}", v[0], v[1], v[2], v[3], v[4], v[5]),
                syms,
            )
        }
        "extract_date" => {
            let d = dt(0, syms)?.parts();
            out_str(format!("{:04}-{:02}-{:02}", d.year, d.month, d.day), syms)
        }
        "extract_time" => {
            let d = dt(0, syms)?.parts();
            out_str(
                format!("{:02}:{:02}:{:02}", d.hour, d.minute, d.second),
                syms,
            )
        }
        "datetime_to_seconds" => {
            let d = dt(0, syms)?;
            let base = DateTime::new(1900, 1, 1, 0, 0, 0)?;
            Some(vec![Value::Int(d.seconds() - base.seconds())])
        }
        "datetime_plus" | "datetime_minus" => {
            let d = dt(0, syms)?;
            let delta = timedelta(*inputs.get(1)?, syms)?;
            let total = if b.name == "datetime_plus" {
                d.seconds() + delta
            } else {
                d.seconds() - delta
            };
            out_str(DateTime::from_seconds(total)?.to_string(), syms)
        }
        "datetime_lt" | "datetime_lteq" | "datetime_gt" | "datetime_gteq" | "datetime_equal" => {
            let x = dt(0, syms)?.seconds();
            let y = dt(1, syms)?.seconds();
            truth(match b.name {
                "datetime_lt" => x < y,
                "datetime_lteq" => x <= y,
                "datetime_gt" => x > y,
                "datetime_gteq" => x >= y,
                _ => x == y,
            })
        }
        "ips_equal" | "ips_lt" | "ips_lteq" | "ips_gt" | "ips_gteq" => {
            let x = ip_key(&s(0, syms)?)?;
            let y = ip_key(&s(1, syms)?)?;
            truth(match b.name {
                "ips_equal" => x == y,
                "ips_lt" => x < y,
                "ips_lteq" => x <= y,
                "ips_gt" => x > y,
                _ => x >= y,
            })
        }
        "networks_equal" => {
            let x = network(&s(0, syms)?)?;
            let y = network(&s(1, syms)?)?;
            truth(x == y)
        }
        "networks_overlap" => {
            let (v1, f1, l1) = network(&s(0, syms)?)?;
            let (v2, f2, l2) = network(&s(1, syms)?)?;
            truth(v1 == v2 && ((f1 <= f2 && f2 <= l1) || (f1 <= l2 && l2 <= l1)))
        }
        "ip_in_network" => {
            let (v, x) = ip_key(&s(0, syms)?)?;
            let (nv, f, l) = network(&s(1, syms)?)?;
            truth(v == nv && f <= x && x <= l)
        }
        "validate_int" | "validate_float" => {
            let msg = validate_number(b.name == "validate_int", inputs, syms);
            out_str(msg, syms)
        }
        "validate_string" => {
            let msg = validate_string(inputs, syms)?;
            out_str(msg, syms)
        }
        _ => None,
    }
}

fn to_float(v: Value, syms: &Symbols) -> Option<f64> {
    match v {
        Value::Int(i) => Some(i as f64),
        Value::Float(f) => Some(f),
        Value::Str(s) => syms.get(s).trim().parse().ok(),
    }
}

fn to_int(v: Value, syms: &Symbols) -> Option<i64> {
    match v {
        Value::Int(i) => Some(i),
        Value::Float(f) if f.is_finite() => Some(f.trunc() as i64),
        Value::Float(_) => None,
        Value::Str(s) => syms.get(s).trim().parse().ok(),
    }
}

fn timedelta(v: Value, syms: &Symbols) -> Option<i64> {
    match v {
        Value::Str(s) => {
            let fields: Vec<&str> = syms.get(s).split(':').collect();
            let weights = [1i64, 60, 3600, 86400, 604800];
            if fields.len() > weights.len() {
                return None;
            }
            let mut total = 0i64;
            for (i, f) in fields.iter().rev().enumerate() {
                total += f.trim().parse::<i64>().ok()? * weights[i];
            }
            Some(total)
        }
        Value::Int(i) => Some(i),
        Value::Float(f) => Some(f as i64),
    }
}

/// A naive date and time (no time zone), to the second, within Python's
/// years 1 to 9999 (the calendar is `vetro-pycompat`'s).
#[derive(Clone, Copy, Debug, PartialEq)]
struct DateTime(PyDateTime);

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

impl DateTime {
    fn new(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> Option<Self> {
        let parts = Parts {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micro: 0,
        };
        PyDateTime::from_parts(parts, None).ok().map(DateTime)
    }

    /// Seconds since 1970-01-01 00:00:00.
    fn seconds(&self) -> i64 {
        self.0.local.div_euclid(US_PER_SEC)
    }

    fn from_seconds(t: i64) -> Option<Self> {
        let d = PyDateTime {
            local: t.checked_mul(US_PER_SEC)?,
            offset: None,
        };
        d.in_python_range().then_some(DateTime(d))
    }

    fn parts(&self) -> Parts {
        self.0.parts()
    }

    /// A small subset of `dateutil.parser.parse`: ISO dates (`2014-01-02`),
    /// `Jan 2, 2014`, `1/2/2014`, times `10:05[:06[.ffffff]]`, am/pm.
    fn parse(text: &str) -> Option<Self> {
        let (mut year, mut month, mut day) = (None, None, None);
        let (mut hour, mut minute, mut second) = (0i64, 0i64, 0i64);
        let mut pm = None;
        let cleaned = text.replace([',', 'T'], " ");
        let mut loose: Vec<i64> = Vec::new();
        for tok in cleaned.split_whitespace() {
            let lower = tok.to_ascii_lowercase();
            if let Some(m) = MONTHS.iter().position(|m| lower.starts_with(m)) {
                month = Some(m as i64 + 1);
            } else if lower == "am" || lower == "pm" {
                pm = Some(lower == "pm");
            } else if tok.contains(':') {
                let parts: Vec<&str> = tok.split(':').collect();
                hour = parts.first()?.parse().ok()?;
                minute = parts.get(1).map_or(Some(0), |p| p.parse().ok())?;
                second = parts
                    .get(2)
                    .map_or(Some(0.0), |p| p.parse::<f64>().ok())?
                    .trunc() as i64;
            } else if tok.contains('-') || tok.contains('/') {
                let sep = if tok.contains('-') { '-' } else { '/' };
                let parts: Vec<i64> = tok
                    .split(sep)
                    .map(|p| p.parse().ok())
                    .collect::<Option<_>>()?;
                if parts.len() != 3 {
                    return None;
                }
                if tok.split(sep).next()?.len() == 4 {
                    (year, month, day) = (Some(parts[0]), Some(parts[1]), Some(parts[2]));
                } else {
                    (month, day, year) = (Some(parts[0]), Some(parts[1]), Some(parts[2]));
                }
            } else {
                loose.push(tok.parse().ok()?);
            }
        }
        for n in loose {
            if day.is_none() && month.is_some() && n <= 31 {
                day = Some(n);
            } else if year.is_none() {
                year = Some(n);
            } else if day.is_none() {
                day = Some(n);
            } else {
                return None;
            }
        }
        if let Some(p) = pm {
            if p && hour < 12 {
                hour += 12;
            } else if !p && hour == 12 {
                hour = 0;
            }
        }
        DateTime::new(year?, month?, day?, hour, minute, second)
    }
}

impl std::fmt::Display for DateTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.to_py_str())
    }
}

/// (version, numeric value) of an address, ordered like netaddr's IPAddress.
fn ip_key(s: &str) -> Option<(u8, u128)> {
    match s.trim().parse::<IpAddr>().ok()? {
        IpAddr::V4(a) => Some((4, u32::from(a) as u128)),
        IpAddr::V6(a) => Some((6, u128::from(a))),
    }
}

/// (version, first, last) of a CIDR network.
fn network(s: &str) -> Option<(u8, u128, u128)> {
    let (addr, len) = match s.split_once('/') {
        Some((a, l)) => (a, Some(l.trim().parse::<u32>().ok()?)),
        None => (s, None),
    };
    let (v, x) = ip_key(addr)?;
    let bits = if v == 4 { 32 } else { 128 };
    let len = len.unwrap_or(bits);
    if len > bits {
        return None;
    }
    let host_bits = bits - len;
    let mask: u128 = if host_bits >= 128 {
        u128::MAX
    } else {
        (1u128 << host_bits) - 1
    };
    Some((v, x & !mask, x | mask))
}

fn validate_number(int: bool, inputs: &[Value], syms: &Symbols) -> String {
    let bound = |v: Option<&Value>| -> Option<f64> {
        match v? {
            Value::Str(s) if syms.get(*s).is_empty() => None,
            v => to_float(*v, syms),
        }
    };
    let (min, max) = (bound(inputs.first()), bound(inputs.get(1)));
    let Some(value) = inputs.get(2) else {
        return "missing value".into();
    };
    let parsed = if int {
        match value {
            Value::Int(i) => Some(*i as f64),
            Value::Str(s) => syms.get(*s).trim().parse::<i64>().ok().map(|i| i as f64),
            Value::Float(_) => None,
        }
    } else {
        to_float(*value, syms)
    };
    let Some(x) = parsed else {
        let kind = if int { "integer" } else { "float" };
        return format!("Value is not a valid {kind}");
    };
    if let Some(m) = min {
        if x < m {
            return format!("Should be greater than or equal to {}", py_num(m));
        }
    }
    if let Some(m) = max {
        if x > m {
            return format!("Should be less than or equal to {}", py_num(m));
        }
    }
    String::new()
}

fn py_num(f: f64) -> String {
    if f.fract() == 0.0 {
        format!("{}", f as i64)
    } else {
        vetro_pycompat::repr::float_repr(f)
    }
}

fn validate_string(inputs: &[Value], syms: &Symbols) -> Option<String> {
    let text = |i: usize| -> Option<String> { Some(py_str(*inputs.get(i)?, syms)) };
    let regex = text(0)?;
    let max_len = match inputs.get(1)? {
        Value::Str(s) if syms.get(*s).is_empty() => None,
        v => to_int(*v, syms),
    };
    let quotes = to_int(*inputs.get(2)?, syms).unwrap_or(0) != 0;
    let ignore_case = to_int(*inputs.get(3)?, syms).unwrap_or(0) != 0;
    let mut value = match inputs.get(4)? {
        Value::Str(s) => syms.get(*s).to_string(),
        _ => return Some("Value is not a string".into()),
    };
    if quotes && value.len() >= 2 {
        let b = value.as_bytes();
        if (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
            value = value[1..value.len() - 1].to_string();
        }
    }
    if let Some(m) = max_len {
        if value.chars().count() as i64 > m {
            return Some(format!("Value '{value}' exceeds maximum length {m}"));
        }
    }
    if !regex.is_empty() {
        let re = regex::RegexBuilder::new(&regex)
            .case_insensitive(ignore_case)
            .build()
            .ok()?;
        if !re.is_match(&value) {
            return Some(format!("Value '{value}' doesn't match regex '{regex}'"));
        }
    }
    Some(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse_both_styles() {
        let a = DateTime::parse("Jan 1, 2014 10:00:00").unwrap();
        let b = DateTime::parse("2014-01-01 10:00:00").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            DateTime::from_seconds(a.seconds() + 3600)
                .unwrap()
                .to_string(),
            "2014-01-01 11:00:00"
        );
        assert!(DateTime::parse("2014-02-29").is_none());
        assert!(DateTime::parse("2016-02-29").is_some());
        let end = DateTime::parse("9999-12-31 23:59:59").unwrap();
        assert!(DateTime::from_seconds(end.seconds() + 1).is_none());
    }

    #[test]
    fn networks() {
        assert_eq!(network("192.0.2.0/24"), network("192.0.2.112/24"));
        assert!(ip_key("::ffff:192.0.2.1").is_some());
    }

    #[test]
    fn floor_division() {
        assert_eq!(floor_div(10, 4), Some(2));
        assert_eq!(floor_div(-7, 2), Some(-4));
    }
}
