//! Reading an object model file (YAML 1.1, or JSON read as YAML like the reference).

use crate::facts::{parse_json, MValue};
use std::path::Path;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::LoadOptions;

/// Loads the first document of a model file. JSON text takes a fast path
/// (same values as the YAML 1.1 reading); anything else goes through the YAML layer.
pub fn load_model(path: &Path, sources: &mut SourceMap) -> Result<MValue, Vec<Diagnostic>> {
    let name = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| vec![Diagnostic::error("io", format!("{name}: {e}"))])?;
    if let Ok(text) = std::str::from_utf8(&bytes) {
        let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
        if start.starts_with('{') || start.starts_with('[') {
            if let Some(v) = parse_json(start) {
                return Ok(v);
            }
        }
    }
    let (_, docs) = vetro_yaml::load_file(path, sources, &LoadOptions::default())?;
    docs.first().map(MValue::from_node).ok_or_else(|| {
        vec![Diagnostic::error(
            "object-model",
            format!("{name}: the file holds no document"),
        )]
    })
}
