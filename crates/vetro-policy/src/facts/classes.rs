//! The class hierarchy used for `murano:parent_types`.

use std::collections::{HashMap, HashSet};

/// Child -> direct parents, in the order the edges were given.
#[derive(Debug, Default, Clone)]
pub struct ClassHierarchy {
    parents: HashMap<String, Vec<String>>,
}

/// A malformed line of a `--classes` file.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeError {
    pub line: usize,
    pub message: String,
}

impl ClassHierarchy {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `Child->Parent` lines; blank lines and `#` comments are ignored.
    pub fn parse_edges(text: &str) -> Result<Self, EdgeError> {
        let mut h = ClassHierarchy::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((child, parent)) = line.split_once("->") else {
                return Err(EdgeError {
                    line: i + 1,
                    message: format!("expected `Child->Parent`, found `{line}`"),
                });
            };
            let (child, parent) = (child.trim(), parent.trim());
            if child.is_empty() || parent.is_empty() {
                return Err(EdgeError {
                    line: i + 1,
                    message: format!("empty class name in `{line}`"),
                });
            }
            h.add_edge(child, parent);
        }
        Ok(h)
    }

    pub fn add_edge(&mut self, child: &str, parent: &str) {
        let list = self.parents.entry(child.to_string()).or_default();
        if !list.iter().any(|p| p == parent) {
            list.push(parent.to_string());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The type itself followed by all its transitive ancestors, each once.
    pub fn with_ancestors(&self, name: &str) -> Vec<String> {
        let mut seen: HashSet<&str> = HashSet::new();
        let mut out = vec![name.to_string()];
        seen.insert(name);
        let mut stack: Vec<&str> = vec![name];
        while let Some(cur) = stack.pop() {
            if let Some(ps) = self.parents.get(cur) {
                for p in ps {
                    if seen.insert(p.as_str()) {
                        out.push(p.clone());
                        stack.push(p.as_str());
                    }
                }
            }
        }
        out
    }
}

/// `ns.Type/1.2.0@package` -> `ns.Type`.
pub fn strip_type_name(type_string: &str) -> &str {
    let before_pkg = type_string.split('@').next().unwrap_or(type_string);
    before_pkg.split('/').next().unwrap_or(before_pkg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_ancestors_once() {
        let h = ClassHierarchy::parse_edges("# c\nA->B\nA->C\nB->D\nC->D\n\n").unwrap();
        let mut got = h.with_ancestors("A");
        got.sort();
        assert_eq!(got, vec!["A", "B", "C", "D"]);
        assert_eq!(h.with_ancestors("X"), vec!["X"]);
    }

    #[test]
    fn bad_edge_line() {
        assert_eq!(ClassHierarchy::parse_edges("A\n").unwrap_err().line, 1);
    }

    #[test]
    fn type_strings() {
        assert_eq!(strip_type_name("ns.T/1.2.0@pkg"), "ns.T");
        assert_eq!(strip_type_name("ns.T@pkg"), "ns.T");
        assert_eq!(strip_type_name("ns.T"), "ns.T");
    }
}
