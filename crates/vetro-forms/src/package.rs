//! The UI definition of an application package: its `UI/ui.yaml` (or the
//! file the manifest's `UI:` names), or one generated from the package's
//! application class when it has none.

use crate::generate::ui_for_class;
use crate::kind::FormsKind;
use crate::wizard::AppInfo;
use crate::UiDefinition;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_dsl::package::Package;
use vetro_dsl::syntax::class::ClassDef;

/// A package loaded for its forms.
pub struct AppPackage {
    pub package: Package,
    /// The manifest's `Name` (the FullName when absent).
    pub display_name: String,
    /// `UI/<file>` when the package has one.
    pub ui_path: Option<PathBuf>,
}

/// Where a UI definition came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UiSource {
    File(PathBuf),
    /// Made from the application class's properties (the YAML text).
    Generated(String),
}

fn manifest_strings(root: &Path, sources: &mut SourceMap) -> (Option<String>, Option<String>) {
    let path = root.join("manifest.yaml");
    let Ok(file) = vetro_yaml::read_source(&path, sources, 1 << 20) else {
        return (None, None);
    };
    let docs = vetro_yaml::load_str(sources, file, &vetro_yaml::LoadOptions::default());
    let get = |key: &str| {
        docs.as_ref()
            .ok()
            .and_then(|d| d.first())
            .and_then(|m| m.get(key))
            .and_then(|n| n.scalar_text())
    };
    (get("Name"), get("UI"))
}

/// The problems of the UI definition of the package folder `root`, if it
/// has one: parse problems and [`crate::check`]'s (for `vetro check`).
pub fn check_package_ui(root: &Path, sources: &mut SourceMap) -> Vec<Diagnostic> {
    let (_, ui) = manifest_strings(root, sources);
    let path = root.join("UI").join(ui.as_deref().unwrap_or("ui.yaml"));
    if !path.is_file() {
        return Vec::new();
    }
    let (parsed, mut problems) = crate::load_file(&path, sources);
    if let Some(ui) = parsed {
        problems.extend(crate::check(&ui, sources));
    }
    problems
}

/// The application class of `package`: the one named like the package,
/// else the first class of the manifest.
fn app_class(package: &Package) -> Option<&Arc<ClassDef>> {
    package
        .classes
        .get(&package.name)
        .or_else(|| package.classes.values().next())
}

/// `class` and every class it extends among the package's classes.
fn lineage(package: &Package, class: &str) -> Vec<String> {
    let mut out = vec![class.to_string()];
    let mut i = 0;
    while i < out.len() && out.len() < 64 {
        if let Some(c) = package.classes.get(&out[i]) {
            for parent in &c.extends {
                if !out.contains(parent) {
                    out.push(parent.clone());
                }
            }
        }
        i += 1;
    }
    out
}

/// A UI definition (YAML text) made from the application class of a
/// package that has none; `None` when the package has no class.
pub fn generated_ui(package: &Package) -> Option<String> {
    let class = app_class(package)?;
    let parents: Vec<&ClassDef> = lineage(package, &class.name)
        .iter()
        .skip(1)
        .filter_map(|n| package.classes.get(n).map(|c| &**c))
        .collect();
    Some(ui_for_class(class, &parents))
}

impl AppPackage {
    /// Load the package folder `root` (manifest and classes).
    pub fn load(root: &Path, sources: &mut SourceMap) -> AppPackage {
        let package = Package::load_dir(root, sources);
        let (name, ui) = manifest_strings(root, sources);
        let ui_path = root.join("UI").join(ui.as_deref().unwrap_or("ui.yaml"));
        AppPackage {
            display_name: name.unwrap_or_else(|| package.name.clone()),
            ui_path: ui_path.is_file().then_some(ui_path),
            package,
        }
    }

    pub fn app_info(&self) -> AppInfo {
        AppInfo {
            fqn: self.package.name.clone(),
            display_name: self.display_name.clone(),
        }
    }

    /// The application class: the one named like the package, else the
    /// first class of the manifest.
    pub fn app_class(&self) -> Option<&Arc<ClassDef>> {
        app_class(&self.package)
    }

    /// `class` and every class it extends among this package's classes.
    pub fn lineage(&self, class: &str) -> Vec<String> {
        lineage(&self.package, class)
    }

    /// The package's UI definition, parsed; generated when the package has
    /// none (`None` then only when it has no class either).
    pub fn ui(
        &self,
        sources: &mut SourceMap,
    ) -> (Option<(UiDefinition, UiSource)>, Vec<Diagnostic>) {
        if let Some(path) = &self.ui_path {
            let (ui, problems) = crate::load_file(path, sources);
            return (ui.map(|u| (u, UiSource::File(path.clone()))), problems);
        }
        let Some(text) = generated_ui(&self.package) else {
            let d = Diagnostic::error(
                FormsKind::Missing,
                format!(
                    "package {} has neither UI/ui.yaml nor a class to make a form from",
                    self.package.name
                ),
            );
            return (None, vec![d]);
        };
        let name = format!("{}/UI/ui.yaml (generated)", self.package.root.display());
        let (ui, problems) = crate::parse_str(&name, &text, sources);
        (ui.map(|u| (u, UiSource::Generated(text))), problems)
    }
}
