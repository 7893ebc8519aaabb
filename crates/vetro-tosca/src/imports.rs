//! Loading a service template with its imports, then running the checks.
//!
//! Files are loaded once each (by canonical path), so import cycles end. Every
//! file is validated against the grammar and, with the catalog of all loaded
//! files, by the semantic checks. The problems of an imported file are shown
//! as one `import-failed` at the importer's `imports/N`.

use crate::catalog::Catalog;
use crate::document::{self, import_entries, FileRec, LoadError};
use crate::files::TemplateFiles;
use crate::hooks::ToscaHooks;
use crate::kind::ToscaKind;
use crate::normative::Normative;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use vetro_diag::{Diagnostic, Kind, SourceMap};
use vetro_kwalify::Grammar;
use vetro_yaml::Node;

struct Loader<'a> {
    grammar: &'a Grammar,
    source: &'a dyn TemplateFiles,
    files: Vec<FileRec>,
    by_path: HashMap<PathBuf, usize>,
}

/// The `file` of an import item (`{name: {file: ...}}` after normalization, or
/// the long form `{file: ...}`).
fn import_file(item: &Node) -> Option<(&str, Option<&str>)> {
    let map = item.as_map()?;
    if let Some(f) = map.get("file").and_then(Node::as_str) {
        return Some((f, map.get("repository").and_then(Node::as_str)));
    }
    let (_, def) = map.entries.first()?;
    let file = def.get("file").and_then(Node::as_str)?;
    Some((file, def.get("repository").and_then(Node::as_str)))
}

/// The directory relative imports of `importer` start from (`.` for a bare file name).
fn importer_dir(importer: &Path) -> &Path {
    importer
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Resolve an import path relative to the importer's directory, with the R4
/// fallback (strip a leading directory part the importer's directory ends with).
fn resolve(files: &dyn TemplateFiles, importer: &Path, file: &str) -> Option<PathBuf> {
    let target = Path::new(file);
    if target.is_absolute() {
        return files.is_file(target).then(|| target.to_path_buf());
    }
    let dir = importer_dir(importer);
    let direct = dir.join(target);
    if files.is_file(&direct) {
        return Some(direct);
    }
    let parts: Vec<Component> = target.components().collect();
    let dir_parts: Vec<Component> = dir.components().collect();
    for k in (1..parts.len()).rev() {
        let prefix = &parts[..k];
        if dir_parts.len() >= k && &dir_parts[dir_parts.len() - k..] == prefix {
            let stripped: PathBuf = parts[k..].iter().collect();
            let p = dir.join(stripped);
            if files.is_file(&p) {
                return Some(p);
            }
        }
    }
    None
}

impl Loader<'_> {
    fn load(&mut self, path: &Path, sources: &mut SourceMap) -> usize {
        let key = self.source.identity(path);
        if let Some(&i) = self.by_path.get(&key) {
            return i;
        }
        let index = self.files.len();
        self.by_path.insert(key, index);
        self.files.push(FileRec {
            path: path.to_path_buf(),
            id: None,
            doc: None,
            problems: Vec::new(),
            edges: Vec::new(),
        });
        match document::load(path, self.source, sources) {
            Err(LoadError::Unreadable(d)) => self.files[index].problems.push(d),
            Err(LoadError::Syntax(ds)) => self.files[index].problems.extend(ds),
            Ok((id, mut doc)) => {
                let problems = self.grammar.validate(&mut doc, &mut ToscaHooks);
                let rec = &mut self.files[index];
                rec.id = Some(id);
                rec.problems
                    .extend(problems.iter().map(|p| p.to_diagnostic()));
                self.load_imports(index, &doc, sources);
                self.files[index].doc = Some(doc);
            }
        }
        index
    }

    fn load_imports(&mut self, index: usize, doc: &Node, sources: &mut SourceMap) {
        let repositories = doc.get("repositories");
        for (n, item) in import_entries(doc) {
            let Some((file, repo)) = import_file(item) else {
                continue;
            };
            let path = format!("imports/{n}");
            if let Some(repo) = repo {
                if repositories.and_then(|r| r.get(repo)).is_none() {
                    self.files[index].problems.push(
                        Diagnostic::error(
                            ToscaKind::UnresolvedReference,
                            format!("import names repository '{repo}', which is not declared"),
                        )
                        .with_span(item.span)
                        .with_path(path),
                    );
                    continue;
                }
                self.files[index].problems.push(
                    Diagnostic::error(
                        ToscaKind::ImportFailed,
                        format!("cannot import '{file}' from repository '{repo}': remote repositories are not fetched"),
                    )
                    .with_span(item.span)
                    .with_path(path),
                );
                continue;
            }
            if file.starts_with("http://") || file.starts_with("https://") {
                self.files[index].problems.push(
                    Diagnostic::error(
                        ToscaKind::ImportFailed,
                        format!("cannot import '{file}': URLs are not fetched (no network access)"),
                    )
                    .with_span(item.span)
                    .with_path(path),
                );
                continue;
            }
            let importer = self.files[index].path.clone();
            match resolve(self.source, &importer, file) {
                None => self.files[index].problems.push(
                    Diagnostic::error(
                        ToscaKind::ImportFailed,
                        format!(
                            "cannot import '{file}': no such file (looked in {}, the directory of {})",
                            importer_dir(&importer).display(),
                            importer.display()
                        ),
                    )
                    .with_span(item.span)
                    .with_path(path),
                ),
                Some(target) => {
                    let t = self.load(&target, sources);
                    self.files[index].edges.push((n, t, item.span));
                }
            }
        }
    }
}

/// Whether a file, or anything it imports, has problems.
fn failed(files: &[FileRec], i: usize, seen: &mut Vec<bool>) -> Option<(usize, String)> {
    if seen[i] {
        return None;
    }
    seen[i] = true;
    if let Some(first) = files[i].problems.first() {
        let at = first
            .span
            .map(|s| format!(" at line {}, column {}", s.line, s.col))
            .unwrap_or_default();
        let path = first
            .path
            .as_deref()
            .filter(|p| !p.is_empty())
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        return Some((i, format!("[{}] {}{path}{at}", first.kind, first.message)));
    }
    for &(_, t, _) in &files[i].edges {
        if let Some(found) = failed(files, t, seen) {
            return Some(found);
        }
    }
    None
}

fn load_all(
    grammar: &Grammar,
    normative: &Normative,
    path: &Path,
    source: &dyn TemplateFiles,
    sources: &mut SourceMap,
) -> (Vec<FileRec>, Catalog) {
    let mut loader = Loader {
        grammar,
        source,
        files: Vec::new(),
        by_path: HashMap::new(),
    };
    loader.load(path, sources);
    let mut files = loader.files;
    let catalog = crate::semantic::run(normative, &mut files, sources);
    (files, catalog)
}

pub fn validate_tree(
    grammar: &Grammar,
    normative: &Normative,
    path: &Path,
    source: &dyn TemplateFiles,
    sources: &mut SourceMap,
) -> crate::Report {
    let (files, _) = load_all(grammar, normative, path, source, sources);
    let main = &files[0];
    let unreadable = main.id.is_none()
        && main
            .problems
            .iter()
            .any(|d| matches!(d.kind, Kind::Io | Kind::Encoding));
    let mut problems = main.problems.clone();
    for &(n, t, span) in &main.edges {
        let mut seen = vec![false; files.len()];
        seen[0] = true;
        if let Some((culprit, inner)) = failed(&files, t, &mut seen) {
            problems.push(
                Diagnostic::error(
                    ToscaKind::ImportFailed,
                    format!(
                        "imported file '{}' is invalid: {inner}",
                        files[culprit].path.display()
                    ),
                )
                .with_span(span)
                .with_path(format!("imports/{n}")),
            );
        }
    }
    crate::Report {
        problems,
        unreadable,
    }
}

pub fn catalog_of(
    grammar: &Grammar,
    normative: &Normative,
    path: &Path,
    source: &dyn TemplateFiles,
    sources: &mut SourceMap,
) -> (Catalog, crate::Report) {
    let (files, catalog) = load_all(grammar, normative, path, source, sources);
    let report = crate::Report {
        problems: files[0].problems.clone(),
        unreadable: files[0].id.is_none(),
    };
    (catalog, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::FileSystem;

    #[test]
    fn r4_strips_a_repeated_directory() {
        let dir = std::env::temp_dir().join(format!("vetro-tosca-r4-{}", std::process::id()));
        let sub = dir.join("custom_types");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("b.yaml"), "x: 1\n").unwrap();
        let importer = sub.join("a.yaml");
        assert_eq!(
            resolve(&FileSystem, &importer, "custom_types/b.yaml"),
            Some(sub.join("b.yaml"))
        );
        assert_eq!(
            resolve(&FileSystem, &importer, "b.yaml"),
            Some(sub.join("b.yaml"))
        );
        assert_eq!(resolve(&FileSystem, &importer, "nope.yaml"), None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
