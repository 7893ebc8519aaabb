//! TOSCA values: primitive type tests, scalar units, and constraint clauses.

use vetro_yaml::{Node, NodeKind};

/// Primitive TOSCA data types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prim {
    String,
    Integer,
    Float,
    Boolean,
    Timestamp,
    Null,
    List,
    Map,
    Version,
    Range,
    Size,
    Time,
    Frequency,
}

impl Prim {
    pub fn parse(name: &str) -> Option<Prim> {
        Some(match name {
            "string" => Prim::String,
            "integer" => Prim::Integer,
            "float" => Prim::Float,
            "boolean" => Prim::Boolean,
            "timestamp" => Prim::Timestamp,
            "null" => Prim::Null,
            "list" => Prim::List,
            "map" => Prim::Map,
            "version" => Prim::Version,
            "range" => Prim::Range,
            "scalar-unit.size" => Prim::Size,
            "scalar-unit.time" => Prim::Time,
            "scalar-unit.frequency" => Prim::Frequency,
            _ => return None,
        })
    }

    pub fn is_scalar_unit(self) -> bool {
        matches!(self, Prim::Size | Prim::Time | Prim::Frequency)
    }
}

const SIZE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0),
    ("kB", 1e3),
    ("KiB", 1024.0),
    ("MB", 1e6),
    ("MiB", 1048576.0),
    ("GB", 1e9),
    ("GiB", 1073741824.0),
    ("TB", 1e12),
    ("TiB", 1099511627776.0),
];
const TIME_UNITS: &[(&str, f64)] = &[
    ("d", 86400.0),
    ("h", 3600.0),
    ("m", 60.0),
    ("s", 1.0),
    ("ms", 1e-3),
    ("us", 1e-6),
    ("ns", 1e-9),
];
const FREQ_UNITS: &[(&str, f64)] = &[("Hz", 1.0), ("kHz", 1e3), ("MHz", 1e6), ("GHz", 1e9)];

/// A scalar-unit value in base units (bytes, seconds, hertz). Units match
/// exactly, else case-insensitively (as tosca-parser does, with a warning).
pub fn scalar_unit(prim: Prim, node: &Node) -> Option<f64> {
    let units = match prim {
        Prim::Size => SIZE_UNITS,
        Prim::Time => TIME_UNITS,
        Prim::Frequency => FREQ_UNITS,
        _ => return None,
    };
    let text = node.as_str()?.trim();
    let split = text
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')
        })
        .unwrap_or(text.len());
    // A trailing exponent letter belongs to the unit when no digits follow it.
    let (mut num, mut unit) = text.split_at(split);
    while num.ends_with(['e', 'E']) {
        num = &num[..num.len() - 1];
        unit = &text[num.len()..];
    }
    let value: f64 = num.trim().parse().ok()?;
    let unit = unit.trim();
    let factor = units
        .iter()
        .find(|(u, _)| *u == unit)
        .or_else(|| units.iter().find(|(u, _)| u.eq_ignore_ascii_case(unit)))
        .map(|(_, f)| *f)?;
    Some(value * factor)
}

fn is_int(node: &Node) -> bool {
    matches!(node.kind, NodeKind::Int(_) | NodeKind::BigInt(_))
}

/// `major.minor[.fix[.qualifier[-build]]]`.
pub fn is_version(node: &Node) -> bool {
    let text = match node.scalar_text() {
        Some(t) if !node.is_null() && !matches!(node.kind, NodeKind::Bool(_)) => t,
        _ => return false,
    };
    let (main, build) = match text.split_once('-') {
        Some((m, b)) => (m, Some(b)),
        None => (text.as_str(), None),
    };
    if build.is_some_and(|b| !b.chars().all(|c| c.is_ascii_digit())) {
        return false;
    }
    let parts: Vec<&str> = main.split('.').collect();
    if parts.len() < 2 || parts.len() > 4 {
        return false;
    }
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    digits(parts[0])
        && digits(parts[1])
        && parts.get(2).is_none_or(|p| digits(p))
        && parts
            .get(3)
            .is_none_or(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// Why `node` is not a valid literal of primitive `prim` (None: it is).
/// Collections are only checked for their shape here.
pub fn prim_problem(prim: Prim, node: &Node) -> Option<String> {
    let ok = match prim {
        Prim::String => matches!(node.kind, NodeKind::Str(_)),
        // A boolean is an integer to tosca-parser (Python's bool is an int).
        Prim::Integer => {
            is_int(node)
                || matches!(node.kind, NodeKind::Bool(_))
                || node
                    .as_str()
                    .is_some_and(|s| s.trim().parse::<i64>().is_ok())
        }
        Prim::Float => {
            matches!(node.kind, NodeKind::Float(_))
                || is_int(node)
                || node
                    .as_str()
                    .is_some_and(|s| s.trim().parse::<f64>().is_ok())
        }
        Prim::Boolean => {
            matches!(node.kind, NodeKind::Bool(_))
                || node.as_str().is_some_and(|s| {
                    s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false")
                })
        }
        Prim::Timestamp => node
            .as_str()
            .is_some_and(|s| vetro_kwalify::is_timestamp_text(s.trim())),
        Prim::Null => node.is_null(),
        Prim::List => matches!(node.kind, NodeKind::Seq(_)),
        Prim::Map => matches!(node.kind, NodeKind::Map(_)),
        Prim::Version => is_version(node),
        Prim::Range => return range_problem(node),
        Prim::Size | Prim::Time | Prim::Frequency => scalar_unit(prim, node).is_some(),
    };
    if ok {
        None
    } else {
        Some(format!("{} is not a valid {}", show(node), prim_name(prim)))
    }
}

fn range_problem(node: &Node) -> Option<String> {
    let bad = || {
        Some(format!(
            "{} is not a valid range [lower, upper]",
            show(node)
        ))
    };
    let Some(items) = node.as_seq() else {
        return bad();
    };
    if items.len() != 2 || !is_int(&items[0]) {
        return bad();
    }
    if !(is_int(&items[1]) || items[1].as_str() == Some("UNBOUNDED")) {
        return bad();
    }
    match (items[0].as_i64(), items[1].as_i64()) {
        (Some(a), Some(b)) if a > b => bad(),
        _ => None,
    }
}

pub fn prim_name(prim: Prim) -> &'static str {
    match prim {
        Prim::String => "string",
        Prim::Integer => "integer",
        Prim::Float => "float",
        Prim::Boolean => "boolean",
        Prim::Timestamp => "timestamp",
        Prim::Null => "null",
        Prim::List => "list",
        Prim::Map => "map",
        Prim::Version => "version",
        Prim::Range => "range",
        Prim::Size => "scalar-unit.size",
        Prim::Time => "scalar-unit.time",
        Prim::Frequency => "scalar-unit.frequency",
    }
}

pub fn show(node: &Node) -> String {
    match node.scalar_text() {
        Some(t) if !node.is_null() => format!("'{t}'"),
        _ => format!("a {}", node.type_name()),
    }
}

/// Whether a value is a TOSCA function call (`{get_input: x}`, ...).
pub fn function_name(node: &Node) -> Option<&str> {
    let map = node.as_map()?;
    if map.len() != 1 {
        return None;
    }
    let key = map.entries[0].0.as_str()?;
    FUNCTIONS.contains(&key).then_some(key)
}

pub const FUNCTIONS: &[&str] = &[
    "get_input",
    "get_property",
    "get_attribute",
    "get_operation_output",
    "get_nodes_of_type",
    "get_artifact",
    "concat",
    "token",
    "join",
];

/// A value prepared for comparisons.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub enum Cmp {
    Num(f64),
    Text(String),
    Version(Vec<u64>),
    Bool(bool),
}

/// The comparable form of `node` as a value of `prim` (None: not comparable).
pub fn comparable(prim: Option<Prim>, node: &Node) -> Option<Cmp> {
    match prim {
        Some(p) if p.is_scalar_unit() => scalar_unit(p, node).map(Cmp::Num),
        Some(Prim::Version) if is_version(node) => {
            let text = node.scalar_text()?;
            let nums = text
                .split(['.', '-'])
                .map(|p| p.parse::<u64>().unwrap_or(0))
                .collect();
            Some(Cmp::Version(nums))
        }
        Some(Prim::Integer) | Some(Prim::Float) => match &node.kind {
            NodeKind::Int(i) => Some(Cmp::Num(*i as f64)),
            NodeKind::Float(f) => Some(Cmp::Num(*f)),
            NodeKind::Str(s) => s.trim().parse::<f64>().ok().map(Cmp::Num),
            _ => None,
        },
        _ => match &node.kind {
            NodeKind::Int(i) => Some(Cmp::Num(*i as f64)),
            NodeKind::Float(f) => Some(Cmp::Num(*f)),
            NodeKind::Str(s) => Some(Cmp::Text(s.clone())),
            NodeKind::Bool(b) => Some(Cmp::Bool(*b)),
            _ => None,
        },
    }
}

/// Loose equality for `equal`/`valid_values` (1 == 1.0; scalar units by value;
/// collections structurally).
pub fn values_equal(prim: Option<Prim>, a: &Node, b: &Node) -> bool {
    match (&a.kind, &b.kind) {
        (NodeKind::Seq(x), NodeKind::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(None, p, q))
        }
        (NodeKind::Map(x), NodeKind::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .any(|(k2, v2)| k.kind == k2.kind && values_equal(None, v, v2))
                })
        }
        _ => match (comparable(prim, a), comparable(prim, b)) {
            (Some(x), Some(y)) => x == y,
            _ => a.kind == b.kind,
        },
    }
}

/// A parsed constraint clause.
#[derive(Debug, Clone)]
pub enum Clause {
    Equal(Node),
    Greater(Node, bool),
    Less(Node, bool),
    InRange(Node, Node),
    ValidValues(Vec<Node>),
    Length(usize),
    MinLength(usize),
    MaxLength(usize),
    Pattern(regex::Regex, String),
}

const OPERATORS: &[&str] = &[
    "equal",
    "greater_than",
    "greater_or_equal",
    "less_than",
    "less_or_equal",
    "in_range",
    "valid_values",
    "length",
    "min_length",
    "max_length",
    "pattern",
];

fn length_operand(v: &Node) -> Result<usize, String> {
    match v.kind {
        NodeKind::Int(i) if i >= 0 => Ok(i as usize),
        _ => Err(format!(
            "a length operand must be a non-negative integer, not {}",
            show(v)
        )),
    }
}

/// Parse one clause mapping, checking its operand against the property type.
pub fn parse_clause(clause: &Node, prim: Option<Prim>) -> Result<Clause, String> {
    let Some(map) = clause.as_map() else {
        return Err(format!(
            "a constraint clause is a mapping, not {}",
            show(clause)
        ));
    };
    if map.len() != 1 {
        return Err(format!(
            "a constraint clause has exactly one operator, found {}",
            map.len()
        ));
    }
    let (k, v) = &map.entries[0];
    let op = k.as_str().unwrap_or_default();
    if !OPERATORS.contains(&op) {
        return Err(format!(
            "unknown constraint operator '{}'",
            k.scalar_text().unwrap_or_default()
        ));
    }
    let operand_ok = |n: &Node| -> Result<(), String> {
        if !n.is_scalar() || n.is_null() {
            return Err(format!(
                "operand of '{op}' must be a scalar, not {}",
                show(n)
            ));
        }
        if let Some(p) = prim {
            if matches!(
                p,
                Prim::Integer
                    | Prim::Float
                    | Prim::Size
                    | Prim::Time
                    | Prim::Frequency
                    | Prim::Version
                    | Prim::Timestamp
            ) && comparable(Some(p), n).is_none()
                && prim_problem(p, n).is_some()
            {
                return Err(format!(
                    "operand {} of '{op}' is not a valid {}",
                    show(n),
                    prim_name(p)
                ));
            }
        }
        Ok(())
    };
    Ok(match op {
        "equal" => Clause::Equal(v.clone()),
        "greater_than" | "greater_or_equal" | "less_than" | "less_or_equal" => {
            operand_ok(v)?;
            let inclusive = op.ends_with("_or_equal");
            if op.starts_with("greater") {
                Clause::Greater(v.clone(), inclusive)
            } else {
                Clause::Less(v.clone(), inclusive)
            }
        }
        "in_range" => {
            let items = v
                .as_seq()
                .ok_or_else(|| format!("'in_range' takes a list of 2 bounds, not {}", show(v)))?;
            if items.len() != 2 {
                return Err(format!(
                    "'in_range' takes exactly 2 bounds, found {}",
                    items.len()
                ));
            }
            operand_ok(&items[0])?;
            if items[1].as_str() != Some("UNBOUNDED") {
                operand_ok(&items[1])?;
            }
            Clause::InRange(items[0].clone(), items[1].clone())
        }
        "valid_values" => {
            let items = v
                .as_seq()
                .ok_or_else(|| format!("'valid_values' takes a list, not {}", show(v)))?;
            Clause::ValidValues(items.to_vec())
        }
        "length" => Clause::Length(length_operand(v)?),
        "min_length" => Clause::MinLength(length_operand(v)?),
        "max_length" => Clause::MaxLength(length_operand(v)?),
        "pattern" => {
            let text = v
                .as_str()
                .ok_or_else(|| format!("'pattern' takes a string, not {}", show(v)))?;
            let re = regex::Regex::new(&format!("^(?:{text})$")).map_err(|e| {
                format!("'pattern' {text:?} is not a valid regular expression: {e}")
            })?;
            Clause::Pattern(re, text.to_string())
        }
        _ => unreachable_operator(op)?,
    })
}

fn unreachable_operator(op: &str) -> Result<Clause, String> {
    Err(format!("unknown constraint operator '{op}'"))
}

fn size_of(node: &Node) -> Option<usize> {
    match &node.kind {
        NodeKind::Str(s) => Some(s.chars().count()),
        NodeKind::Seq(x) => Some(x.len()),
        NodeKind::Map(m) => Some(m.len()),
        _ => None,
    }
}

/// Why `value` violates `clause` (None: satisfied or not applicable).
pub fn violation(clause: &Clause, prim: Option<Prim>, value: &Node) -> Option<String> {
    let cmp = |bound: &Node| -> Option<std::cmp::Ordering> {
        let a = comparable(prim, value)?;
        let b = comparable(prim, bound)?;
        a.partial_cmp(&b)
    };
    use std::cmp::Ordering::*;
    let v = show(value);
    match clause {
        Clause::Equal(x) => {
            (!values_equal(prim, value, x)).then(|| format!("{v} is not equal to {}", show(x)))
        }
        Clause::Greater(x, inc) => match cmp(x) {
            Some(Greater) => None,
            Some(Equal) if *inc => None,
            Some(_) => Some(format!(
                "{v} must be greater than {}{}",
                if *inc { "or equal to " } else { "" },
                show(x)
            )),
            None => None,
        },
        Clause::Less(x, inc) => match cmp(x) {
            Some(Less) => None,
            Some(Equal) if *inc => None,
            Some(_) => Some(format!(
                "{v} must be less than {}{}",
                if *inc { "or equal to " } else { "" },
                show(x)
            )),
            None => None,
        },
        Clause::InRange(lo, hi) => {
            let below = matches!(cmp(lo), Some(Less));
            let above = hi.as_str() != Some("UNBOUNDED") && matches!(cmp(hi), Some(Greater));
            (below || above).then(|| format!("{v} is out of range [{}, {}]", show(lo), show(hi)))
        }
        Clause::ValidValues(items) => {
            (!items.iter().any(|x| values_equal(prim, value, x))).then(|| {
                let list: Vec<String> = items.iter().map(show).collect();
                format!("{v} is not one of the valid values [{}]", list.join(", "))
            })
        }
        Clause::Length(n) => size_of(value)
            .filter(|s| s != n)
            .map(|s| format!("{v} has length {s}, must be {n}")),
        Clause::MinLength(n) => size_of(value)
            .filter(|s| s < n)
            .map(|s| format!("{v} has length {s}, must be at least {n}")),
        Clause::MaxLength(n) => size_of(value)
            .filter(|s| s > n)
            .map(|s| format!("{v} has length {s}, must be at most {n}")),
        Clause::Pattern(re, text) => match value.as_str() {
            Some(s) if !re.is_match(s) => Some(format!("{v} does not match the pattern '{text}'")),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vetro_diag::{FileId, Span};

    fn s(text: &str) -> Node {
        Node::new(
            NodeKind::Str(text.into()),
            Span {
                file: FileId(0),
                start: 0,
                end: 0,
                line: 1,
                col: 1,
            },
        )
    }

    #[test]
    fn scalar_units() {
        assert_eq!(scalar_unit(Prim::Size, &s("1 GB")), Some(1e9));
        assert_eq!(scalar_unit(Prim::Size, &s("512MB")), Some(512e6));
        assert_eq!(
            scalar_unit(Prim::Size, &s("2 gib")),
            Some(2.0 * 1073741824.0)
        );
        assert_eq!(scalar_unit(Prim::Time, &s("10 ms")), Some(0.01));
        assert_eq!(scalar_unit(Prim::Frequency, &s("2.5 GHz")), Some(2.5e9));
        assert_eq!(scalar_unit(Prim::Size, &s("1024")), None);
        assert_eq!(scalar_unit(Prim::Size, &s("1 parsec")), None);
    }

    #[test]
    fn versions() {
        assert!(is_version(&s("1.0")));
        assert!(is_version(&s("2.1.3.beta-4")));
        assert!(!is_version(&s("1")));
        assert!(!is_version(&s("a.b")));
    }
}
