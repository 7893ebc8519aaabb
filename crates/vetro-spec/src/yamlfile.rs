//! Reading YAML files (spec files and settings files) into nodes or JSON.

use crate::error::{ErrorClass, Result, SpecError};
use serde_json::Value;
use std::path::Path;
use vetro_diag::{Kind, SourceMap};
use vetro_yaml::{load_file, to_json, LoadOptions, Node};

/// Load the first document of a YAML file; `None` for an empty file.
/// Syntax errors get `class`, with the position of the problem.
pub fn load_yaml_nodes(
    path: &Path,
    sources: &mut SourceMap,
    class: ErrorClass,
) -> Result<Option<Node>> {
    if !path.exists() {
        return Err(SpecError::new(
            ErrorClass::FileNotFound,
            format!("file not found: {}", path.display()),
        ));
    }
    match load_file(path, sources, &LoadOptions::default()) {
        Ok((_, docs)) => Ok(docs.into_iter().next()),
        Err(diags) => {
            let first = diags.into_iter().next();
            let unreadable = first
                .as_ref()
                .is_some_and(|d| matches!(d.kind, Kind::Io | Kind::Encoding));
            let mut err = SpecError::new(
                if unreadable { ErrorClass::Io } else { class },
                match &first {
                    Some(d) => format!("{}: {}", path.display(), d.message),
                    None => format!("{}: cannot be read", path.display()),
                },
            );
            if let Some(span) = first.and_then(|d| d.span) {
                err = err.with_span(span);
            }
            Err(err)
        }
    }
}

/// Load a settings YAML file as JSON; an empty file is `empty_settings_file`.
pub fn load_settings_file(path: &Path, sources: &mut SourceMap) -> Result<Value> {
    match load_yaml_nodes(path, sources, ErrorClass::YamlSyntax)? {
        Some(node) if !node.is_null() => Ok(to_json(&node)),
        _ => Err(SpecError::new(
            ErrorClass::EmptySettingsFile,
            format!("settings file is empty: {}", path.display()),
        )),
    }
}
