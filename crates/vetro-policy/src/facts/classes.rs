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

    /// Adds the `Extends` edges of a set of MuranoPL classes given as
    /// (name, parents). A class without parents extends `io.murano.Object`, and
    /// so does every parent outside the set (the core library), as in MuranoPL.
    pub fn add_classes<'c>(&mut self, classes: impl IntoIterator<Item = (&'c str, &'c [String])>) {
        const OBJECT: &str = "io.murano.Object";
        let mut loaded: HashSet<&str> = HashSet::new();
        let mut parents: Vec<&str> = Vec::new();
        for (name, extends) in classes {
            loaded.insert(name);
            if extends.is_empty() && name != OBJECT {
                self.add_edge(name, OBJECT);
            }
            for parent in extends {
                self.add_edge(name, parent);
                parents.push(parent);
            }
        }
        for parent in parents {
            if parent != OBJECT && !loaded.contains(parent) {
                self.add_edge(parent, OBJECT);
            }
        }
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

/// The MuranoPL package directories under `dirs`: each directory that holds a
/// `manifest.yaml` is a package, otherwise its subdirectories that do are
/// (sorted by name).
pub fn package_roots(
    dirs: &[std::path::PathBuf],
) -> Result<Vec<std::path::PathBuf>, vetro_diag::Diagnostic> {
    use vetro_diag::Diagnostic;
    let mut roots = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(Diagnostic::error(
                vetro_diag::Kind::Io,
                format!("{}: not a package directory", dir.display()),
            ));
        }
        if dir.join("manifest.yaml").is_file() {
            roots.push(dir.clone());
            continue;
        }
        let entries = std::fs::read_dir(dir).map_err(|e| {
            Diagnostic::error(vetro_diag::Kind::Io, format!("{}: {e}", dir.display()))
        })?;
        let mut found: Vec<std::path::PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("manifest.yaml").is_file())
            .collect();
        found.sort();
        roots.extend(found);
    }
    Ok(roots)
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
