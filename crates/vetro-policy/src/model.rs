//! Reading an object model file (YAML 1.1, or JSON read as YAML like the reference).

use std::path::Path;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::{LoadOptions, Node};

/// Loads the first document of a model file.
pub fn load_model(path: &Path, sources: &mut SourceMap) -> Result<Node, Vec<Diagnostic>> {
    let (_, docs) = vetro_yaml::load_file(path, sources, &LoadOptions::default())?;
    docs.into_iter().next().ok_or_else(|| {
        vec![Diagnostic::error(
            "object-model",
            format!("{}: the file holds no document", path.display()),
        )]
    })
}
