//! Type tests on loaded values.

use crate::rule::RuleType;
use vetro_yaml::{Node, NodeKind};

/// YAML 1.1 timestamp syntax (`2016-01-01`, `2001-12-14t21:59:43.10-05:00`, ...).
pub fn is_timestamp_text(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    // yyyy-m?m-d?d
    if b.len() < 8 || !digits(0..4) || b[4] != b'-' {
        return false;
    }
    let mut i = 5;
    let take = |i: &mut usize, max: usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() && *i - start < max {
            *i += 1;
        }
        *i - start
    };
    let m = take(&mut i, 2);
    if m == 0 || i >= b.len() || b[i] != b'-' {
        return false;
    }
    i += 1;
    let d = take(&mut i, 2);
    if d == 0 {
        return false;
    }
    if i == b.len() {
        return m == 2 && d == 2;
    }
    // time part: [Tt]|[ \t]+ then hh:mm:ss(.frac)? (zone)?
    match b[i] {
        b'T' | b't' => i += 1,
        b' ' | b'\t' => {
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
        }
        _ => return false,
    }
    if take(&mut i, 2) == 0 || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    if take(&mut i, 2) != 2 || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    if take(&mut i, 2) != 2 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i == b.len() {
        return true;
    }
    match b[i] {
        b'Z' => i + 1 == b.len(),
        b'+' | b'-' => {
            i += 1;
            if take(&mut i, 2) == 0 {
                return false;
            }
            if b.get(i) == Some(&b':') {
                i += 1;
                if take(&mut i, 2) != 2 {
                    return false;
                }
            }
            i == b.len()
        }
        _ => false,
    }
}

/// Whether a node is a timestamp as a YAML 1.1 loader would type it: a plain,
/// untagged string in timestamp syntax (or one tagged `!!timestamp`).
pub fn is_timestamp(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Str(s) => match node.tag.as_deref() {
            Some("!!timestamp") | Some("tag:yaml.org,2002:timestamp") => true,
            Some(_) => false,
            None => node.style.is_plain() && is_timestamp_text(s),
        },
        _ => false,
    }
}

fn is_date(node: &Node) -> bool {
    is_timestamp(node) && node.as_str().is_some_and(|s| !s.contains([':']))
}

/// The type test of a rule `type` (null is handled by the caller).
pub fn type_matches(ty: RuleType, node: &Node) -> bool {
    let is_str = matches!(node.kind, NodeKind::Str(_)) && !is_timestamp(node);
    let is_int = matches!(node.kind, NodeKind::Int(_) | NodeKind::BigInt(_));
    let is_float = matches!(node.kind, NodeKind::Float(_));
    match ty {
        RuleType::Str => is_str,
        RuleType::Int => is_int,
        RuleType::Float => is_float,
        RuleType::Number => is_int || is_float,
        RuleType::Bool => matches!(node.kind, NodeKind::Bool(_)),
        RuleType::Text => is_str || is_int || is_float,
        RuleType::Scalar => node.is_scalar() && !node.is_null(),
        RuleType::Timestamp => is_timestamp(node),
        RuleType::Date => is_date(node),
        RuleType::Map => matches!(node.kind, NodeKind::Map(_)),
        RuleType::Seq => matches!(node.kind, NodeKind::Seq(_)),
        RuleType::Any => true,
    }
}

/// The kind of a value for messages, with timestamps told apart from strings.
pub fn value_kind(node: &Node) -> &'static str {
    if is_timestamp(node) {
        "timestamp"
    } else {
        node.type_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        for ok in [
            "2016-01-01",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.10 -5",
            "2001-12-15T02:59:43.1Z",
            "2002-1-1 1:00:00",
        ] {
            assert!(is_timestamp_text(ok), "{ok}");
        }
        for bad in ["2016-1-1", "2016-01-01x", "abc", "1.0", "2016-01-01T1:2"] {
            assert!(!is_timestamp_text(bad), "{bad}");
        }
    }
}
