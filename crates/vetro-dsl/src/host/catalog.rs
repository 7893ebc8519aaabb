//! A library from package folders plus a catalog on disk: what the given
//! packages require and what an object model names, taken from the catalog
//! (see [`crate::package::catalog`]); the bundled core and cloud classes
//! are never looked up there.

use super::Library;
use crate::package::catalog::{load_with_dependencies, Catalog, ClassRef};
use crate::package::BUNDLED_PACKAGE;
use crate::syntax::ClassDef;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use vetro_diag::{Diagnostic, SourceMap};

/// The classes of the bundled cloud and core libraries, in that order,
/// parsed once per process.
pub(crate) fn bundled_classes() -> &'static [(String, Arc<ClassDef>)] {
    static BUNDLED: OnceLock<Vec<(String, Arc<ClassDef>)>> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        // Their spans live in this private map: nothing reports inside them.
        let mut sources = SourceMap::new();
        let packages = [
            super::cloud_package(&mut sources),
            crate::core::core_package(&mut sources),
        ];
        packages
            .iter()
            .flat_map(|p| p.classes.iter().map(|(n, d)| (n.clone(), d.clone())))
            .collect()
    })
}

/// Whether the bundled libraries define class `name`.
pub(super) fn is_bundled_class(name: &str) -> bool {
    bundled_classes().iter().any(|(n, _)| n == name)
}

/// The classes of `model` a catalog must provide: all but the bundled ones.
pub(super) fn model_class_refs(model: &Json) -> Vec<ClassRef> {
    ClassRef::in_model(model)
        .into_iter()
        .filter(|r| match &r.package {
            Some(p) => p != BUNDLED_PACKAGE,
            None => !is_bundled_class(&r.class),
        })
        .collect()
}

/// Load package folders `dirs` with what they and `model` need from the
/// catalog over `catalog_dirs`. Resolution problems come back as
/// diagnostics (kinds `missing-package`, `duplicate-package`,
/// `version-conflict`, `cyclic-require`, `unknown-class`, `version-range`).
pub fn load_with_catalog(
    dirs: &[PathBuf],
    catalog_dirs: &[PathBuf],
    model: Option<&Json>,
) -> Result<Library, Vec<Diagnostic>> {
    let catalog = Catalog::new(catalog_dirs);
    let classes = model.map(model_class_refs).unwrap_or_default();
    let mut sources = SourceMap::new();
    let packages = load_with_dependencies(dirs, &catalog, &classes, &mut sources)
        .map_err(|errs| errs.iter().map(|e| e.to_diagnostic()).collect::<Vec<_>>())?;
    Ok(Library::from_packages(packages, sources))
}
