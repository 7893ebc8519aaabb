//! Reading one service template file into a single root mapping.

use crate::files::TemplateFiles;
use std::path::{Path, PathBuf};
use vetro_diag::{Diagnostic, FileId, Kind, SourceMap, Span};
use vetro_yaml::{LoadOptions, Node};

/// Why a file could not be turned into a document.
pub enum LoadError {
    /// Not readable at all (missing, directory, not text).
    Unreadable(Diagnostic),
    /// Readable, but not one YAML document with a mapping root.
    Syntax(Vec<Diagnostic>),
}

fn syntax(mut d: Diagnostic) -> Diagnostic {
    if d.kind != Kind::YamlSyntax {
        d.message = format!("{} ({})", d.message, d.kind);
        d.kind = Kind::YamlSyntax;
    }
    // The root: no path (JSON output writes it as "").
    d.path = None;
    d
}

/// Read `path` from `files` into `sources` (strict UTF-8: a bad byte is an
/// `encoding` error with its position) and parse it.
fn read_and_parse(
    path: &Path,
    files: &dyn TemplateFiles,
    sources: &mut SourceMap,
) -> Result<(FileId, Vec<Node>), Vec<Diagnostic>> {
    let bytes = files.read(path).map_err(|d| vec![d])?;
    let name = if path.as_os_str() == "-" {
        vetro_yaml::STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    };
    let text = vetro_yaml::decode_strict_at(&bytes)
        .map_err(|msg| vec![Diagnostic::error(Kind::Encoding, format!("{name}:{msg}"))])?;
    let file = sources.add(name, text);
    let docs = vetro_yaml::load_str(sources, file, &LoadOptions::default())?;
    Ok((file, docs))
}

/// Load `path`; on success the file id and the root mapping node.
pub fn load(
    path: &Path,
    files: &dyn TemplateFiles,
    sources: &mut SourceMap,
) -> Result<(FileId, Node), LoadError> {
    let (file, docs) = match read_and_parse(path, files, sources) {
        Ok(ok) => ok,
        Err(diags) => {
            if let Some(d) = diags
                .iter()
                .find(|d| matches!(d.kind, Kind::Io | Kind::Encoding))
            {
                return Err(LoadError::Unreadable(d.clone()));
            }
            return Err(LoadError::Syntax(diags.into_iter().map(syntax).collect()));
        }
    };
    let name = sources.name(file).to_string();
    let whole = sources.span(file, 0, 0);
    let problem = |msg: String| {
        LoadError::Syntax(vec![
            Diagnostic::error(Kind::YamlSyntax, msg).with_span(whole)
        ])
    };
    let mut docs = docs;
    match docs.len() {
        0 => Err(problem(format!("{name}: the file is empty"))),
        1 => {
            let root = docs
                .pop()
                .unwrap_or_else(|| Node::new(vetro_yaml::NodeKind::Null, whole));
            if root.as_map().is_some() {
                Ok((file, root))
            } else if root.is_null() {
                Err(problem(format!("{name}: the file is empty")))
            } else {
                Err(LoadError::Syntax(vec![Diagnostic::error(
                    Kind::YamlSyntax,
                    format!(
                        "the document root must be a mapping, not a {}",
                        root.type_name()
                    ),
                )
                .with_span(root.span)]))
            }
        }
        n => Err(problem(format!(
            "{name}: a service template is one YAML document, this file has {n}"
        ))),
    }
}

/// One loaded file.
pub struct FileRec {
    pub path: PathBuf,
    pub id: Option<FileId>,
    /// The root mapping with short forms expanded; `None` if it did not load.
    pub doc: Option<Node>,
    pub problems: Vec<Diagnostic>,
    /// `imports/N` entries that loaded: (N, target file, span of the entry).
    pub edges: Vec<(usize, usize, Span)>,
}

/// The import entries of a normalized document: (index, name, definition map).
pub fn import_entries(doc: &Node) -> Vec<(usize, &Node)> {
    doc.get("imports")
        .and_then(Node::as_seq)
        .map(|items| items.iter().enumerate().collect())
        .unwrap_or_default()
}
