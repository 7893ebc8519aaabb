//! Where a service template and its imports are read from: the file system
//! (the `vetro tosca` commands) or a map held in memory (a service validating
//! an uploaded archive, tests, fuzzing), behind one trait so that the import
//! resolution rules are the same for both.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use vetro_diag::Diagnostic;

/// The files a template and its imports are read from.
pub trait TemplateFiles {
    /// Whether `path` names a readable file.
    fn is_file(&self, path: &Path) -> bool;
    /// A key shared by every path that reaches the same file (so that each
    /// file loads once and import cycles end).
    fn identity(&self, path: &Path) -> PathBuf;
    /// The bytes of `path`. Errors are diagnostics of kind `io` (or
    /// `too-large` for input past a size limit).
    fn read(&self, path: &Path) -> Result<Vec<u8>, Diagnostic>;
}

/// The local file system; `-` is standard input.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileSystem;

impl TemplateFiles for FileSystem {
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn identity(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, Diagnostic> {
        vetro_yaml::read_bytes(path, vetro_yaml::DEFAULT_MAX_INPUT)
    }
}

/// Files held in memory, by path. Paths are compared after lexical
/// normalization (`a/./b/../c` is `a/c`); nothing outside the map is read.
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    files: HashMap<PathBuf, Vec<u8>>,
}

impl MemoryFiles {
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    /// Add (or replace) a file.
    pub fn insert(&mut self, path: impl AsRef<Path>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(normalize(path.as_ref()), bytes.into());
    }
}

impl TemplateFiles for MemoryFiles {
    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(&normalize(path))
    }

    fn identity(&self, path: &Path) -> PathBuf {
        normalize(path)
    }

    fn read(&self, path: &Path) -> Result<Vec<u8>, Diagnostic> {
        self.files.get(&normalize(path)).cloned().ok_or_else(|| {
            Diagnostic::error(
                vetro_diag::Kind::Io,
                format!("{}: no such file", path.display()),
            )
        })
    }
}

/// `path` with `.` parts dropped and each `..` removing the part before it
/// (a `..` with nothing before it is kept, so it matches no stored file).
fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(Component::Normal(_)) => {
                    parts.pop();
                }
                _ => parts.push(c),
            },
            _ => parts.push(c),
        }
    }
    parts.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_paths_are_normalized() {
        let mut files = MemoryFiles::new();
        files.insert("types/a.yaml", "x: 1\n");
        assert!(files.is_file(Path::new("./types/b/../a.yaml")));
        assert!(!files.is_file(Path::new("../types/a.yaml")));
        assert_eq!(
            files.identity(Path::new("types/./a.yaml")),
            PathBuf::from("types/a.yaml")
        );
        assert_eq!(files.read(Path::new("types/a.yaml")).unwrap(), b"x: 1\n");
        assert_eq!(files.read(Path::new("nope.yaml")).unwrap_err().kind, "io");
    }
}
