//! A compact value tree for object models, read either from the YAML layer's
//! nodes or straight from JSON text (the fast path for large models).

use vetro_yaml::{Node, NodeKind, Resolved, Style, YamlVersion};

/// A model value as PyYAML would load it.
#[derive(Clone, Debug, PartialEq)]
pub enum MValue {
    Null,
    Bool(bool),
    Int(i64),
    BigInt(String),
    Float(f64),
    /// A string; `plain` when it was an untagged plain scalar (which may be a timestamp).
    Str {
        text: String,
        plain: bool,
    },
    Seq(Vec<MValue>),
    Map(Vec<(MValue, MValue)>),
}

impl MValue {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MValue::Str { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&MValue> {
        match self {
            MValue::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            MValue::Null => "null",
            MValue::Bool(_) => "boolean",
            MValue::Int(_) | MValue::BigInt(_) => "integer",
            MValue::Float(_) => "float",
            MValue::Str { .. } => "string",
            MValue::Seq(_) => "sequence",
            MValue::Map(_) => "mapping",
        }
    }

    /// Converts a YAML node tree.
    pub fn from_node(node: &Node) -> MValue {
        match &node.kind {
            NodeKind::Null => MValue::Null,
            NodeKind::Bool(b) => MValue::Bool(*b),
            NodeKind::Int(i) => MValue::Int(*i),
            NodeKind::BigInt(s) => MValue::BigInt(s.clone()),
            NodeKind::Float(f) => MValue::Float(*f),
            NodeKind::Str(s) => MValue::Str {
                text: s.clone(),
                plain: match node.tag.as_deref() {
                    None => node.style == Style::Plain,
                    Some(t) => t == "!!timestamp" || t == "tag:yaml.org,2002:timestamp",
                },
            },
            NodeKind::Seq(items) => MValue::Seq(items.iter().map(MValue::from_node).collect()),
            NodeKind::Map(m) => MValue::Map(
                m.iter()
                    .map(|(k, v)| (MValue::from_node(k), MValue::from_node(v)))
                    .collect(),
            ),
        }
    }
}

/// Parses JSON text; numbers are typed by the YAML 1.1 resolver, as PyYAML
/// types them when it reads JSON. `None` when the text is not plain JSON.
pub fn parse_json(text: &str) -> Option<MValue> {
    let mut p = Json {
        b: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    (p.i == p.b.len()).then_some(v)
}

struct Json<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<MValue> {
        self.depth += 1;
        if self.depth > 512 {
            return None;
        }
        let v = match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut entries: Vec<(MValue, MValue)> = Vec::new();
                let mut seen: std::collections::HashMap<String, usize> =
                    std::collections::HashMap::new();
                self.ws();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.ws();
                        if !self.eat(b':') {
                            return None;
                        }
                        self.ws();
                        let v = self.value()?;
                        // A repeated key keeps the last value, as PyYAML reads JSON.
                        let text = k.as_str().unwrap_or_default().to_string();
                        let found = if entries.len() < 16 {
                            entries
                                .iter()
                                .position(|(old, _): &(MValue, MValue)| *old == k)
                        } else {
                            if seen.is_empty() {
                                for (i, (old, _)) in entries.iter().enumerate() {
                                    seen.insert(old.as_str().unwrap_or_default().to_string(), i);
                                }
                            }
                            seen.get(&text).copied()
                        };
                        match found {
                            Some(i) => entries[i].1 = v,
                            None => {
                                if !seen.is_empty() {
                                    seen.insert(text, entries.len());
                                }
                                entries.push((k, v));
                            }
                        }
                        self.ws();
                        if self.eat(b',') {
                            continue;
                        }
                        if self.eat(b'}') {
                            break;
                        }
                        return None;
                    }
                }
                MValue::Map(entries)
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if !self.eat(b']') {
                    loop {
                        self.ws();
                        items.push(self.value()?);
                        self.ws();
                        if self.eat(b',') {
                            continue;
                        }
                        if self.eat(b']') {
                            break;
                        }
                        return None;
                    }
                }
                MValue::Seq(items)
            }
            b'"' => self.string()?,
            b't' if self.b[self.i..].starts_with(b"true") => {
                self.i += 4;
                MValue::Bool(true)
            }
            b'f' if self.b[self.i..].starts_with(b"false") => {
                self.i += 5;
                MValue::Bool(false)
            }
            b'n' if self.b[self.i..].starts_with(b"null") => {
                self.i += 4;
                MValue::Null
            }
            b'-' | b'0'..=b'9' => {
                let start = self.i;
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.b[start..self.i]).ok()?;
                match vetro_yaml::resolve_plain(t, YamlVersion::V1_1) {
                    Resolved::Int(i) => MValue::Int(i),
                    Resolved::BigInt(s) => MValue::BigInt(s),
                    Resolved::Float(f) => MValue::Float(f),
                    Resolved::Bool(b) => MValue::Bool(b),
                    Resolved::Null => MValue::Null,
                    Resolved::Str => MValue::Str {
                        text: t.to_string(),
                        plain: true,
                    },
                }
            }
            _ => return None,
        };
        self.depth -= 1;
        Some(v)
    }

    fn string(&mut self) -> Option<MValue> {
        if !self.eat(b'"') {
            return None;
        }
        let mut out = String::new();
        let mut start = self.i;
        loop {
            let c = *self.b.get(self.i)?;
            match c {
                b'"' => {
                    out.push_str(std::str::from_utf8(&self.b[start..self.i]).ok()?);
                    self.i += 1;
                    break;
                }
                b'\\' => {
                    out.push_str(std::str::from_utf8(&self.b[start..self.i]).ok()?);
                    self.i += 1;
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi)
                                && self.b[self.i..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                        }
                        _ => return None,
                    }
                    start = self.i;
                }
                0..=0x1f => return None,
                _ => self.i += 1,
            }
        }
        Some(MValue::Str {
            text: out,
            plain: false,
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let s = std::str::from_utf8(self.b.get(self.i..self.i + 4)?).ok()?;
        self.i += 4;
        u32::from_str_radix(s, 16).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers_follow_yaml_11() {
        let v = parse_json(r#"{"a": 1e3, "b": 1.5, "c": 010, "d": "x\u00e9", "e": [true, null]}"#)
            .unwrap();
        assert_eq!(
            v.get("a"),
            Some(&MValue::Str {
                text: "1e3".into(),
                plain: true
            })
        );
        assert_eq!(v.get("b"), Some(&MValue::Float(1.5)));
        assert_eq!(v.get("c"), Some(&MValue::Int(8)));
        assert_eq!(v.get("d").and_then(MValue::as_str), Some("xé"));
        assert!(parse_json("{a: 1}").is_none());
        let dup = parse_json(r#"{"k": 1, "k": 2}"#).unwrap();
        assert_eq!(
            dup,
            MValue::Map(vec![(
                MValue::Str {
                    text: "k".into(),
                    plain: false
                },
                MValue::Int(2)
            )])
        );
        let many: Vec<String> = (0..40).map(|i| format!("\"k{}\": {i}", i % 20)).collect();
        let big = parse_json(&format!("{{{}}}", many.join(","))).unwrap();
        assert!(matches!(&big, MValue::Map(e) if e.len() == 20));
        assert_eq!(big.get("k3"), Some(&MValue::Int(23)));
    }
}
