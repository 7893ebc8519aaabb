//! `check` of packages with their dependencies resolved (the CLI's
//! `vetro check DIR --packages CATALOG`): classes that exist nowhere, in any
//! namespace, and classes of packages not required, are load failures.

use std::path::{Path, PathBuf};
use vetro_diag::{Diagnostic, Severity, SourceMap};
use vetro_dsl::check;
use vetro_dsl::package::{Catalog, Package, Resolver};

fn write(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir.to_path_buf()
}

/// Check `given` with its dependencies from a catalog over `catalog`.
fn check_closed(given: &[PathBuf], catalog: &[PathBuf]) -> Vec<Diagnostic> {
    let mut sources = SourceMap::new();
    let mut all: Vec<Package> = given
        .iter()
        .map(|d| Package::load_dir(d, &mut sources))
        .collect();
    let cat = Catalog::new(catalog);
    let mut r = Resolver::new(&cat);
    all.iter().for_each(|p| r.give(p));
    let (deps, errors) = r.finish_partial();
    let n = all.len();
    all.extend(
        deps.iter()
            .map(|d| Package::load_dir(&d.root, &mut sources)),
    );
    let mut out: Vec<Diagnostic> = all.iter().flat_map(|p| p.problems.clone()).collect();
    out.extend(errors.iter().map(|e| e.to_diagnostic()));
    out.extend(check::closed_problems(&all, n));
    out
}

fn errors(diags: &[Diagnostic]) -> Vec<(String, String)> {
    diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.kind.to_string(), d.message.clone()))
        .collect()
}

const LIB_MANIFEST: &str = "Format: 1.4\nFullName: org.lib\nClasses:\n  org.lib.Base: Base.yaml\n";
const LIB_BASE: &str = "Namespaces:\n  =: org.lib\nName: Base\n";

fn app(requires: &str, class: &str) -> [(&'static str, String); 2] {
    [
        (
            "manifest.yaml",
            format!(
                "Format: 1.4\nFullName: org.app\n{requires}Classes:\n  org.app.App: App.yaml\n"
            ),
        ),
        ("Classes/App.yaml", class.to_string()),
    ]
}

fn setup(requires: &str, class: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let cat = write(
        &t.path().join("catalog/lib"),
        &[
            ("manifest.yaml", LIB_MANIFEST),
            ("Classes/Base.yaml", LIB_BASE),
        ],
    );
    let files = app(requires, class);
    let app = write(
        &t.path().join("app"),
        &[(files[0].0, &files[0].1), (files[1].0, &files[1].1)],
    );
    let _ = cat;
    let catalog = t.path().join("catalog");
    (t, app, catalog)
}

#[test]
fn a_required_package_from_the_catalog_provides_the_parent() {
    let (_t, app, catalog) = setup(
        "Require:\n  org.lib:\n",
        "Namespaces:\n  =: org.app\n  l: org.lib\nName: App\nExtends: l:Base\n",
    );
    assert_eq!(errors(&check_closed(&[app], &[catalog])), []);
}

#[test]
fn a_parent_under_io_murano_that_does_not_exist_is_an_error() {
    let (_t, app, catalog) = setup("", "Namespaces:\n  =: org.app\n  apps: io.murano.applications\nName: App\nExtends: apps:NoSuchThing\n");
    let errs = errors(&check_closed(&[app], &[catalog]));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, "unknown-class");
    assert!(
        errs[0].1.contains("io.murano.applications.NoSuchThing"),
        "{}",
        errs[0].1
    );
}

#[test]
fn bundled_classes_need_no_require() {
    let (_t, app, catalog) = setup(
        "",
        "Namespaces:\n  =: org.app\n  std: io.murano\n  res: io.murano.resources\nName: App\nExtends: std:Application\nProperties:\n  vm:\n    Contract: $.class(res:Instance)\n",
    );
    assert_eq!(errors(&check_closed(&[app], &[catalog])), []);
}

#[test]
fn a_dependency_no_given_package_provides_is_an_error() {
    let (_t, app, _catalog) = setup(
        "Require:\n  org.lib:\n",
        "Namespaces:\n  =: org.app\nName: App\n",
    );
    // No catalog: the requirement is named with who needs it.
    let errs = errors(&check_closed(std::slice::from_ref(&app), &[]));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, "missing-package");
    assert!(
        errs[0].1.contains("org.app 0.0.0") && errs[0].1.contains("org.lib"),
        "{}",
        errs[0].1
    );
    assert!(
        errs[0].1.contains("no --packages directory"),
        "{}",
        errs[0].1
    );
}

#[test]
fn a_class_of_a_package_not_required_does_not_load() {
    let t = tempfile::tempdir().unwrap();
    let lib = write(
        &t.path().join("lib"),
        &[
            ("manifest.yaml", LIB_MANIFEST),
            ("Classes/Base.yaml", LIB_BASE),
        ],
    );
    let files = app(
        "",
        "Namespaces:\n  =: org.app\n  l: org.lib\nName: App\nExtends: l:Base\n",
    );
    let app = write(
        &t.path().join("app"),
        &[(files[0].0, &files[0].1), (files[1].0, &files[1].1)],
    );
    let errs = errors(&check_closed(&[app, lib], &[]));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, "class-not-required");
    assert!(
        errs[0].1.contains("org.lib.Base") && errs[0].1.contains("does not Require org.lib"),
        "{}",
        errs[0].1
    );
}

#[test]
fn contracts_naming_unknown_classes_are_errors() {
    let (_t, app, catalog) = setup(
        "Require:\n  org.lib:\n",
        "Namespaces:\n  =: org.app\n  l: org.lib\nName: App\nProperties:\n  a:\n    Contract: $.class(l:Base)\n  b:\n    Contract: [$.class(l:Missing).notNull()]\n",
    );
    let errs = errors(&check_closed(&[app], &[catalog]));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].1.contains("contract names class org.lib.Missing"),
        "{}",
        errs[0].1
    );
}

#[test]
fn packages_checked_alone_only_warn_about_unknown_classes() {
    let (_t, app, _) = setup(
        "",
        "Namespaces:\n  =: org.app\nName: App\nExtends: org.other.Base\n",
    );
    let mut sources = SourceMap::new();
    let pkgs = [Package::load_dir(&app, &mut sources)];
    let found = check::resolution_problems(&pkgs);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Severity::Warning);
}
