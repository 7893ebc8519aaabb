//! Reading an object model file: JSON through the YAML layer's fast path,
//! anything else as YAML 1.1 (the reference reads JSON models as YAML).

use crate::facts::MValue;
use crate::kind::InputKind;
use std::path::Path;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::LoadOptions;

/// Loads the first document of a model file (`-` is standard input).
pub fn load_model(path: &Path, sources: &mut SourceMap) -> Result<MValue, Vec<Diagnostic>> {
    let (id, doc) =
        vetro_yaml::load_data(path, sources, &LoadOptions::default(), MValue::from_node)?;
    doc.ok_or_else(|| {
        vec![Diagnostic::error(
            InputKind::ObjectModel,
            format!("{}: the file holds no document", sources.name(id)),
        )]
    })
}
