//! The package catalog on disk: folders found by their manifests, versions
//! side by side, `Require:` ranges, model classes, and every way resolution
//! fails (missing, duplicate, conflicting, cyclic).

use std::path::{Path, PathBuf};
use vetro_diag::SourceMap;
use vetro_dsl::package::catalog::{load_with_dependencies, resolve_class, resolve_package};
use vetro_dsl::package::{Catalog, CatalogError, ClassRef, Resolver, VersionSpec};

/// Write a package folder `dir` with a manifest and one class per name.
fn package(
    dir: &Path,
    name: &str,
    version: Option<&str>,
    requires: &[(&str, &str)],
    classes: &[&str],
) {
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    let mut m = format!("Format: 1.4\nType: Application\nFullName: {name}\n");
    if let Some(v) = version {
        m += &format!("Version: {v}\n");
    }
    if !requires.is_empty() {
        m += "Require:\n";
        for (r, spec) in requires {
            m += &format!("  {r}: '{spec}'\n");
        }
    }
    m += "Classes:\n";
    for (i, c) in classes.iter().enumerate() {
        m += &format!("  {c}: c{i}.yaml\n");
        let short = c.rsplit('.').next().unwrap();
        let ns = &c[..c.len() - short.len() - 1];
        std::fs::write(
            dir.join(format!("Classes/c{i}.yaml")),
            format!("Namespaces:\n  =: {ns}\nName: {short}\nMethods:\n  run:\n    Body:\n      - Return: 1\n"),
        )
        .unwrap();
    }
    std::fs::write(dir.join("manifest.yaml"), m).unwrap();
}

fn names(r: &[vetro_dsl::package::Resolved]) -> Vec<String> {
    r.iter()
        .map(|p| format!("{}@{}", p.name, p.version))
        .collect()
}

/// A small catalog: two versions of a web server, a database library and
/// an app that needs both.
fn shelf() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    package(&d.join("web/v0"), "org.web", None, &[], &["org.web.Server"]);
    package(
        &d.join("web/v1"),
        "org.web",
        Some("1.0.0"),
        &[("org.db", "")],
        &["org.web.Server", "org.web.Balancer"],
    );
    package(
        &d.join("web/v1-1"),
        "org.web",
        Some("1.1"),
        &[("org.db", "")],
        &["org.web.Server"],
    );
    package(&d.join("db"), "org.db", Some("0.3.1"), &[], &["org.db.Sql"]);
    package(
        &d.join("app/package"),
        "org.app",
        None,
        &[("org.web", "1"), ("io.murano", "")],
        &["org.app.App"],
    );
    // A manifest.yaml inside a package (a resource) is not another package.
    std::fs::create_dir_all(d.join("app/package/Resources")).unwrap();
    std::fs::write(
        d.join("app/package/Resources/manifest.yaml"),
        "not: a package\n",
    )
    .unwrap();
    t
}

#[test]
fn folders_with_a_manifest_are_packages_and_versions_coexist() {
    let t = shelf();
    let cat = Catalog::new(&[t.path().to_path_buf()]);
    let mut found: Vec<String> = cat
        .entries()
        .iter()
        .map(|e| format!("{}@{}", e.name, e.version))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "org.app@0.0.0",
            "org.db@0.3.1",
            "org.web@0.0.0",
            "org.web@1.0.0",
            "org.web@1.1.0"
        ]
    );
    assert!(cat.unreadable().is_empty());
    let spec = |s| VersionSpec::parse(Some(s)).unwrap();
    assert_eq!(
        cat.find("org.web", &spec("1"))
            .unwrap()
            .unwrap()
            .version
            .to_string(),
        "1.1.0"
    );
    assert_eq!(
        cat.find("org.web", &spec("<1.1"))
            .unwrap()
            .unwrap()
            .version
            .to_string(),
        "1.0.0"
    );
    assert_eq!(
        cat.find("org.web", &VersionSpec::parse(None).unwrap())
            .unwrap()
            .unwrap()
            .version
            .to_string(),
        "0.0.0"
    );
    assert!(cat.find("org.web", &spec("2")).unwrap().is_none());
    let balancer = cat
        .find_class("org.web.Balancer", &VersionSpec::any())
        .unwrap()
        .unwrap();
    assert_eq!(balancer.version.to_string(), "1.0.0");
}

#[test]
fn require_ranges_pick_the_highest_version_and_follow_dependencies() {
    let t = shelf();
    let got = resolve_package(&[t.path().to_path_buf()], "org.app", None).unwrap();
    // io.murano is the bundled library: never taken from the catalog.
    assert_eq!(
        names(&got),
        ["org.app@0.0.0", "org.web@1.1.0", "org.db@0.3.1"]
    );
    assert!(got[1].root.ends_with("web/v1-1"));
}

#[test]
fn a_require_without_a_version_means_the_zero_major() {
    let t = shelf();
    package(
        &t.path().join("blog"),
        "org.blog",
        None,
        &[("org.web", "")],
        &["org.blog.Blog"],
    );
    let got = resolve_package(&[t.path().to_path_buf()], "org.blog", None).unwrap();
    assert_eq!(names(&got), ["org.blog@0.0.0", "org.web@0.0.0"]);
}

#[test]
fn several_directories_form_one_catalog() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    package(
        &a.path().join("x"),
        "org.x",
        None,
        &[("org.y", "")],
        &["org.x.X"],
    );
    package(&b.path().join("y"), "org.y", None, &[], &["org.y.Y"]);
    let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
    assert_eq!(
        names(&resolve_package(&dirs, "org.x", None).unwrap()),
        ["org.x@0.0.0", "org.y@0.0.0"]
    );
}

#[test]
fn a_missing_package_names_who_needs_it_and_where_it_looked() {
    let t = shelf();
    package(
        &t.path().join("shop"),
        "org.shop",
        None,
        &[("org.pay", ">=2"), ("org.db", "1")],
        &["org.shop.Shop"],
    );
    let errs = resolve_package(&[t.path().to_path_buf()], "org.shop", None).unwrap_err();
    assert_eq!(errs.len(), 2, "{errs:?}");
    let text: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert!(
        matches!(&errs[0], CatalogError::Missing { name, found, .. } if name == "org.pay" && found.is_empty())
    );
    assert!(
        text[0].contains("org.shop 0.0.0") && text[0].contains("org.pay (>=2.0.0)"),
        "{}",
        text[0]
    );
    assert!(
        text[0].contains(&t.path().display().to_string()),
        "{}",
        text[0]
    );
    // org.db exists, but not in range: the versions it has are listed.
    assert!(
        text[1].contains("org.db") && text[1].contains("0.3.1"),
        "{}",
        text[1]
    );
}

#[test]
fn two_folders_with_one_name_and_version_are_an_error_naming_both() {
    let t = shelf();
    package(
        &t.path().join("copy-of-db"),
        "org.db",
        Some("0.3.1"),
        &[],
        &["org.db.Sql"],
    );
    let errs = resolve_package(&[t.path().to_path_buf()], "org.app", None).unwrap_err();
    let [CatalogError::Duplicate {
        name,
        version,
        first,
        second,
    }] = errs.as_slice()
    else {
        panic!("{errs:?}");
    };
    assert_eq!((name.as_str(), version.as_str()), ("org.db", "0.3.1"));
    let mut both = [first.clone(), second.clone()];
    both.sort();
    assert_eq!(both, [t.path().join("copy-of-db"), t.path().join("db")]);
    // Unused duplicates are not in the way.
    assert!(resolve_package(&[t.path().to_path_buf()], "org.web", Some("0")).is_ok());
}

#[test]
fn cyclic_requires_are_an_error_not_a_hang() {
    let t = tempfile::tempdir().unwrap();
    package(
        &t.path().join("a"),
        "org.a",
        None,
        &[("org.b", "")],
        &["org.a.A"],
    );
    package(
        &t.path().join("b"),
        "org.b",
        None,
        &[("org.c", "")],
        &["org.b.B"],
    );
    package(
        &t.path().join("c"),
        "org.c",
        None,
        &[("org.a", ""), ("org.c", "")],
        &["org.c.C"],
    );
    let errs = resolve_package(&[t.path().to_path_buf()], "org.a", None).unwrap_err();
    assert_eq!(
        errs,
        [CatalogError::Cycle(vec![
            "org.a".into(),
            "org.b".into(),
            "org.c".into(),
            "org.a".into()
        ])]
    );
    assert_eq!(
        errs[0].to_string(),
        "cyclic Require: org.a -> org.b -> org.c -> org.a"
    );
}

#[test]
fn one_session_holds_one_version_of_a_package() {
    let t = shelf();
    package(
        &t.path().join("old"),
        "org.old",
        None,
        &[("org.web", "0"), ("org.app", "")],
        &["org.old.Old"],
    );
    let errs = resolve_package(&[t.path().to_path_buf()], "org.old", None).unwrap_err();
    let text = errs[0].to_string();
    assert!(matches!(errs[0], CatalogError::Conflict { .. }), "{text}");
    assert!(
        text.contains("org.web 0.0.0") && text.contains(">=1.0.0,<2.0.0-0"),
        "{text}"
    );
}

#[test]
fn given_packages_stand_for_their_name_and_model_classes_resolve() {
    let t = shelf();
    let mine = tempfile::tempdir().unwrap();
    // The folder given on the command line shadows the catalog's org.app.
    package(
        mine.path(),
        "org.app",
        Some("3.0"),
        &[("org.web", "0")],
        &["org.app.App"],
    );
    let model = serde_json::json!({"?": {"type": "org.app.App", "id": "1"},
        "db": {"?": {"type": "org.db.Sql/0.3@org.db", "id": "2"}},
        "lb": [{"?": {"type": "org.web.Server", "id": "3"}}]});
    let classes = ClassRef::in_model(&model);
    assert_eq!(
        classes[1],
        ClassRef {
            class: "org.db.Sql".into(),
            version: Some("0.3".into()),
            package: Some("org.db".into())
        }
    );
    let cat = Catalog::new(&[t.path().to_path_buf()]);
    let mut sources = SourceMap::new();
    let pkgs =
        load_with_dependencies(&[mine.path().to_path_buf()], &cat, &classes, &mut sources).unwrap();
    let got: Vec<String> = pkgs
        .iter()
        .map(|p| format!("{}@{}", p.name, p.version))
        .collect();
    assert_eq!(got, ["org.app@3.0.0", "org.web@0.0.0", "org.db@0.3.1"]);
    assert!(pkgs.iter().all(|p| p.problems.is_empty()));
    // A model class no package lists is an error naming it.
    let lost = [ClassRef::parse("org.nope.Thing", None, None)];
    let errs = load_with_dependencies(&[mine.path().to_path_buf()], &cat, &lost, &mut sources)
        .unwrap_err();
    assert!(
        errs[0].to_string().contains("class org.nope.Thing"),
        "{}",
        errs[0]
    );
}

#[test]
fn unreadable_manifests_are_skipped_and_reported() {
    let t = shelf();
    std::fs::create_dir_all(t.path().join("broken")).unwrap();
    std::fs::write(t.path().join("broken/manifest.yaml"), "Version: [\n").unwrap();
    let cat = Catalog::new(&[t.path().to_path_buf()]);
    assert_eq!(cat.entries().len(), 5);
    assert_eq!(cat.unreadable().len(), 1);
    assert!(cat.unreadable()[0].0.ends_with("broken"));
}

#[test]
fn thousands_of_packages_index_in_bounded_time() {
    let t = tempfile::tempdir().unwrap();
    for i in 0..600 {
        let dir = t.path().join(format!("p{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let req = if i > 0 {
            format!("Require:\n  org.p{}: \n", i - 1)
        } else {
            String::new()
        };
        std::fs::write(
            dir.join("manifest.yaml"),
            format!("FullName: org.p{i}\n{req}Classes:\n  org.p{i}.C: c.yaml\n"),
        )
        .unwrap();
    }
    let started = std::time::Instant::now();
    let dirs: Vec<PathBuf> = vec![t.path().to_path_buf()];
    let got = resolve_package(&dirs, "org.p599", None).unwrap();
    assert_eq!(got.len(), 600);
    // Generous for a debug build on a shared machine; the point is no blow-up.
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}

#[test]
fn a_resolver_reports_every_problem_at_once() {
    let t = shelf();
    let cat = Catalog::new(&[t.path().to_path_buf()]);
    let mut r = Resolver::new(&cat);
    r.require("org.none", None, "test");
    r.require("org.web", Some("=>1"), "test");
    r.class(ClassRef::parse("org.app.Missing", None, None), "test");
    let errs = r.finish().unwrap_err();
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert!(matches!(errs[1], CatalogError::BadRange { .. }));
}

#[test]
fn a_class_for_a_package_comes_in_the_version_its_require_takes() {
    let t = shelf();
    let d = t.path();
    let catalog = Catalog::new(&[d.to_path_buf()]);
    let mut sources = SourceMap::new();
    let app = vetro_dsl::package::Package::load_dir(&d.join("app/package"), &mut sources);
    // org.app requires org.web 1.x: the highest 1.x defining Server is 1.1.
    let root = resolve_class(&catalog, &app, "org.web.Server").unwrap();
    assert_eq!(root, d.join("web/v1-1"));
    // Balancer is only in 1.0.0, also in range.
    let root = resolve_class(&catalog, &app, "org.web.Balancer").unwrap();
    assert_eq!(root, d.join("web/v1"));
    // Out of range: an error naming the versions there are.
    let narrow = vetro_dsl::package::Package {
        requires: vec![("org.web".into(), Some(">=1.1".into()))],
        ..vetro_dsl::package::Package::load_dir(&d.join("app/package"), &mut sources)
    };
    let e = resolve_class(&catalog, &narrow, "org.web.Balancer").unwrap_err();
    assert!(matches!(e[0], CatalogError::NoClass { .. }), "{e:?}");
    assert!(e[0].to_string().contains("1.0.0"), "{e:?}");
    // A class no Require: names: its highest version; its own needs resolve.
    let db = vetro_dsl::package::Package::load_dir(&d.join("db"), &mut sources);
    assert_eq!(
        resolve_class(&catalog, &db, "org.web.Balancer").unwrap(),
        d.join("web/v1")
    );
    assert_eq!(
        resolve_class(&catalog, &app, "org.app.App").unwrap(),
        d.join("app/package")
    );
    let e = resolve_class(&catalog, &app, "org.none.Thing").unwrap_err();
    assert!(e[0].to_string().contains("org.none.Thing"), "{e:?}");
}
