//! `inspect_package`: what the catalog needs to know about an uploaded
//! archive, after the same checks `vetro murano check` runs. A package whose
//! manifest or classes do not load is refused with the checker's problems,
//! each with its file (relative to the archive), line and column. The
//! archive is unpacked within [`ArchiveLimits`] (entries, unpacked bytes,
//! paths that would leave it), as [`crate::archive`] describes.

use crate::archive::{self, ArchiveLimits};
use serde::Serialize;
use serde_json::Value as Json;
use std::path::Path;
use vetro_diag::{render_text, ColorChoice, Diagnostic, Kind, Severity, SourceMap};
use vetro_dsl::check;
use vetro_dsl::package::{Manifest, Package};
use vetro_dsl::DslKind;

/// The catalog's view of a package (Murano's package columns).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PackageInfo {
    /// `FullName` of the manifest.
    pub fqn: String,
    /// `Name` (the FQN when the manifest has none).
    pub name: String,
    /// Semantic version, coerced (`1` is `1.0.0`).
    pub version: String,
    /// `Application` or `Library`.
    pub package_type: String,
    /// Runtime format (`1.0` .. `1.4`).
    pub format: String,
    pub description: String,
    pub author: String,
    pub supplier: Option<Json>,
    pub tags: Vec<String>,
    /// Every class the package defines.
    pub class_names: Vec<String>,
    /// Packages it requires: (FQN, version spec).
    pub requires: Vec<(String, Option<String>)>,
    /// The UI definition (`UI/<file>`), when the archive has one.
    pub ui: Option<String>,
    /// The logo image (`Logo`, default `logo.png`), when the archive has one.
    pub logo: Option<Vec<u8>>,
    /// The supplier's logo image (`Supplier: {Logo: ...}`), when named and present.
    pub supplier_logo: Option<Vec<u8>>,
    /// Warnings of the checker (they do not refuse the package).
    pub warnings: Vec<Problem>,
}

/// One checker problem, positions resolved and file names relative to the archive.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    /// `error`, `warning` or `note`.
    pub severity: Severity,
    /// Stable identifier (`yaml-syntax`, `unknown-method`, ...), and for a
    /// refused archive: `archive` (malformed or hostile), `archive-size`
    /// (over a size limit), `manifest` (none, or unusable), `io` (the
    /// package could not be unpacked here).
    pub kind: Kind,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// Path inside the document (`Methods/deploy/Body/3`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Problem {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl std::fmt::Display for Problem {
    /// `file:line:col: severity: message`, as `vetro murano check` starts its lines.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
            if let (Some(l), Some(c)) = (self.line, self.column) {
                write!(f, "{l}:{c}:")?;
            }
            f.write_str(" ")?;
        }
        write!(f, "{}: {}", self.severity, self.message)
    }
}

/// Why a package was refused; it decides how the refusal is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The package does not load or check: its problems say where.
    Invalid,
    /// The archive is malformed or hostile.
    Archive,
    /// The archive is over a size limit.
    TooLarge,
    /// The archive has no `manifest.yaml`, or one the catalog cannot use.
    Manifest,
    /// The package could not be unpacked here (no fault of the archive).
    Local,
}

impl Refusal {
    /// The problem kind of a refusal made without the checker (an invalid
    /// package's problems are the checker's, each with its own kind).
    fn kind(self) -> Kind {
        match self {
            Refusal::Invalid => RefusalKind::Package.into(),
            Refusal::Archive => DslKind::Archive.into(),
            Refusal::TooLarge => RefusalKind::ArchiveSize.into(),
            Refusal::Manifest => DslKind::Manifest.into(),
            Refusal::Local => Kind::Io,
        }
    }
}

vetro_diag::kinds! {
    /// The kinds of refusal that no kind of the package checker names.
    enum RefusalKind {
        /// The package does not load or check.
        Package = "package",
        /// The archive is over a size limit.
        ArchiveSize = "archive-size",
    }
}

/// A refused package: why, the problems, and the checker's full text
/// rendering (source excerpts with carets), file names relative to the archive.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rejection {
    #[serde(skip)]
    pub cause: Refusal,
    pub problems: Vec<Problem>,
    pub rendered: String,
}

impl Rejection {
    /// The first error (or else the first problem), for a one-line message.
    pub fn first(&self) -> Option<&Problem> {
        self.problems
            .iter()
            .find(|p| p.is_error())
            .or(self.problems.first())
    }

    /// A refusal with one problem of the whole archive (or of one `file` in it).
    fn plain(cause: Refusal, message: impl Into<String>, file: Option<String>) -> Rejection {
        let p = Problem {
            severity: Severity::Error,
            kind: cause.kind(),
            message: message.into(),
            file,
            line: None,
            column: None,
            path: None,
        };
        let rendered = format!("{p}\n");
        Rejection {
            cause,
            problems: vec![p],
            rendered,
        }
    }
}

/// Unpack `zip` within `limits`, load and check the package in it.
pub fn inspect_package(zip: &[u8], limits: &ArchiveLimits) -> Result<PackageInfo, Rejection> {
    let dir = tempfile::tempdir()
        .map_err(|e| Rejection::plain(Refusal::Local, format!("no temporary folder: {e}"), None))?;
    archive::extract(zip, dir.path(), limits).map_err(|e| {
        let cause = if e.too_large {
            Refusal::TooLarge
        } else {
            Refusal::Archive
        };
        Rejection::plain(cause, e.message.clone(), e.entry.clone())
    })?;
    let root = archive::package_root(dir.path()).ok_or_else(|| {
        Rejection::plain(
            Refusal::Manifest,
            "the archive has no manifest.yaml (at its top or in its only folder)",
            None,
        )
    })?;
    inspect_dir(&root)
}

/// Load and check an unpacked package folder.
pub fn inspect_dir(root: &Path) -> Result<PackageInfo, Rejection> {
    let mut sources = SourceMap::new();
    let package = Package::load_dir(root, &mut sources);
    let mut diags: Vec<Diagnostic> = package.problems.clone();
    let packages = std::slice::from_ref(&package);
    diags.extend(check::resolution_problems(packages));
    diags.extend(check::analysis_problems(packages));
    let prefix = format!("{}/", root.display());
    let problems: Vec<Problem> = diags
        .iter()
        .map(|d| resolve(d, &sources, &prefix))
        .collect();
    if diags.iter().any(Diagnostic::is_error) {
        let rendered = render_text(&sources, &diags, ColorChoice::Never).replace(&prefix, "");
        return Err(Rejection {
            cause: Refusal::Invalid,
            problems,
            rendered,
        });
    }
    let warnings = problems.into_iter().filter(|p| !p.is_error()).collect();
    describe(root, &package, &mut sources, warnings)
}

fn resolve(d: &Diagnostic, sources: &SourceMap, prefix: &str) -> Problem {
    let strip = |s: &str| s.replace(prefix, "");
    Problem {
        severity: d.severity,
        kind: d.kind,
        message: strip(&d.message),
        file: d.span.map(|s| strip(sources.name(s.file))),
        line: d.span.map(|s| s.line),
        column: d.span.map(|s| s.col),
        path: d.path.clone(),
    }
}

/// The catalog fields, read from the manifest (already validated by the load).
fn describe(
    root: &Path,
    package: &Package,
    sources: &mut SourceMap,
    warnings: Vec<Problem>,
) -> Result<PackageInfo, Rejection> {
    let manifest = Manifest::load(&root.join("manifest.yaml"), sources).map_err(|d| {
        let prefix = format!("{}/", root.display());
        let problems: Vec<Problem> = d.iter().map(|x| resolve(x, sources, &prefix)).collect();
        let rendered = render_text(sources, &d, ColorChoice::Never).replace(&prefix, "");
        Rejection {
            cause: Refusal::Invalid,
            problems,
            rendered,
        }
    })?;
    let raw = vetro_dsl::host::read_model(&root.join("manifest.yaml")).unwrap_or(Json::Null);
    let text = |key: &str| match raw.get(key) {
        Some(Json::String(s)) => Some(s.trim_end().to_string()),
        Some(Json::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    let tags = match raw.get("Tags") {
        Some(Json::Array(items)) => items
            .iter()
            .map(|t| match t {
                Json::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let package_type = match manifest.kind.to_ascii_lowercase().as_str() {
        "" | "application" => "Application",
        "library" => "Library",
        _ => {
            return Err(Rejection::plain(
                Refusal::Manifest,
                format!(
                    "the manifest's Type must be Application or Library, not '{}'",
                    manifest.kind
                ),
                Some("manifest.yaml".into()),
            ))
        }
    };
    let ui_file = text("UI").unwrap_or_else(|| "ui.yaml".into());
    // An application without forms gets them from its class's properties
    // (what the dashboard then shows to add it).
    let ui = read_inside(root, &format!("UI/{ui_file}"))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .or_else(|| {
            (package_type == "Application")
                .then(|| vetro_forms::package::generated_ui(package))
                .flatten()
        });
    let logo_file = text("Logo").unwrap_or_else(|| "logo.png".into());
    let supplier_logo = match raw.pointer("/Supplier/Logo") {
        Some(Json::String(l)) => read_inside(root, l),
        _ => None,
    };
    let mut class_names: Vec<String> = package.classes.keys().cloned().collect();
    class_names.sort();
    Ok(PackageInfo {
        fqn: manifest.full_name.clone(),
        name: text("Name").unwrap_or_else(|| manifest.full_name.clone()),
        version: manifest.version.clone(),
        package_type: package_type.into(),
        format: manifest.format.clone(),
        // As written (a block scalar keeps its last newline), as Murano stores it.
        description: match raw.get("Description") {
            Some(Json::String(s)) => s.clone(),
            _ => text("Description").unwrap_or_default(),
        },
        author: text("Author").unwrap_or_default(),
        supplier: raw.get("Supplier").cloned(),
        tags,
        class_names,
        requires: manifest.require.clone(),
        ui,
        logo: read_inside(root, &logo_file),
        supplier_logo,
        warnings,
    })
}

/// A file of the package named by the manifest, only when it stays inside
/// and is a regular file within the input limit (a pipe would block, a device
/// such as /dev/zero never ends).
fn read_inside(root: &Path, rel: &str) -> Option<Vec<u8>> {
    let p = Path::new(rel);
    if p.components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return None;
    }
    let path = root.join(p);
    if !std::fs::metadata(&path).ok()?.is_file() {
        return None;
    }
    vetro_yaml::read_bytes(&path, vetro_yaml::DEFAULT_MAX_INPUT).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::tests::zip_of;
    use crate::testdata::example_zip;

    #[test]
    fn the_example_package_is_described() {
        let info = inspect_package(&example_zip(), &ArchiveLimits::default()).unwrap();
        assert_eq!(info.fqn, "io.vetro.examples.WebServer");
        assert_eq!(info.name, "Example web server");
        assert_eq!(info.version, "0.1.0");
        assert_eq!(info.package_type, "Application");
        assert_eq!(info.author, "vetro");
        assert!(info.description.starts_with("A small web server"));
        assert_eq!(
            info.class_names,
            [
                "io.vetro.examples.WebServer",
                "io.vetro.examples.tests.WebServerTests"
            ]
        );
        let ui = info.ui.as_deref().unwrap_or_default();
        assert!(ui.starts_with("Version: 2.2"), "{ui}");
        assert!(info.logo.is_none() && info.supplier_logo.is_none());
    }

    #[test]
    fn a_broken_class_is_refused_with_its_position() {
        let manifest = b"Format: MuranoPL/1.4\nType: Library\nFullName: t.Broken\nClasses:\n  t.Broken: Broken.yaml\n";
        let class = b"Name: t.Broken\nMethods:\n  go:\n    Body:\n      - $x: [1, 2\n";
        let z = zip_of(&[("manifest.yaml", manifest), ("Classes/Broken.yaml", class)]);
        let r = inspect_package(&z, &ArchiveLimits::default()).unwrap_err();
        let first = &r.problems[0];
        assert_eq!(first.file.as_deref(), Some("Classes/Broken.yaml"), "{r:?}");
        assert!(first.line.is_some() && first.column.is_some());
        assert!(first.to_string().starts_with("Classes/Broken.yaml:"));
        assert!(r.rendered.contains("Classes/Broken.yaml"));
        assert!(!r.rendered.contains("/tmp"), "{}", r.rendered);
    }

    #[test]
    fn ui_logo_tags_and_a_nested_root_are_read() {
        let manifest = b"Format: 1.3\nType: Library\nFullName: t.Lib\nName: Lib\nTags: [a, b]\nLogo: pic.png\nClasses: {}\n";
        let z = zip_of(&[
            ("pkg/manifest.yaml", manifest),
            ("pkg/UI/ui.yaml", b"Version: 2\n"),
            ("pkg/pic.png", b"\x89PNG"),
        ]);
        let info = inspect_package(&z, &ArchiveLimits::default()).unwrap();
        assert_eq!(info.tags, ["a", "b"]);
        assert_eq!(info.ui.as_deref(), Some("Version: 2\n"));
        assert_eq!(info.logo.as_deref(), Some(&b"\x89PNG"[..]));
        assert_eq!(info.package_type, "Library");
    }

    #[test]
    fn an_application_without_forms_gets_them_from_its_properties() {
        let manifest = b"Format: MuranoPL/1.4\nType: Application\nFullName: t.App\nClasses:\n  t.App: App.yaml\n";
        let class = b"Name: t.App\nProperties:\n  size:\n    Contract: $.int().notNull()\n";
        let z = zip_of(&[("manifest.yaml", manifest), ("Classes/App.yaml", class)]);
        let info = inspect_package(&z, &ArchiveLimits::default()).unwrap();
        let ui = info.ui.unwrap_or_default();
        assert!(ui.contains("type: \"integer\""), "{ui}");
        assert!(ui.contains("\"size\": $.appConfiguration.size"), "{ui}");
    }

    /// A UI file or a logo that is a pipe or a device is left out, unread.
    #[cfg(unix)]
    #[test]
    fn a_ui_or_logo_that_is_not_a_regular_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("manifest.yaml"),
            "Format: 1.3\nType: Library\nFullName: t.Lib\nLogo: pic.png\nClasses: {}\n",
        )
        .unwrap();
        std::fs::create_dir(root.join("UI")).unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(root.join("UI/ui.yaml"))
            .status()
            .unwrap();
        assert!(fifo.success());
        std::os::unix::fs::symlink("/dev/zero", root.join("pic.png")).unwrap();
        let started = std::time::Instant::now();
        let info = inspect_dir(root).unwrap();
        assert!(info.ui.is_none() && info.logo.is_none());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn the_supplier_logo_is_read_and_the_type_checked() {
        let manifest = b"Format: 1.3\nType: library\nFullName: t.Lib\nSupplier:\n  Name: S\n  Logo: s.png\nClasses: {}\n";
        let z = zip_of(&[("manifest.yaml", manifest), ("s.png", b"logo")]);
        let info = inspect_package(&z, &ArchiveLimits::default()).unwrap();
        assert_eq!(info.supplier_logo.as_deref(), Some(&b"logo"[..]));
        assert_eq!(info.package_type, "Library");
        assert_eq!(info.supplier.unwrap()["Name"], "S");
        let odd = b"Format: 1.3\nType: Widget\nFullName: t.Odd\nClasses: {}\n";
        let r = inspect_package(
            &zip_of(&[("manifest.yaml", odd)]),
            &ArchiveLimits::default(),
        )
        .unwrap_err();
        assert_eq!(r.problems[0].kind, "manifest");
        assert!(r.problems[0].message.contains("Widget"), "{r:?}");
    }

    #[test]
    fn size_limits_are_told_apart_from_bad_archives() {
        let limits = ArchiveLimits {
            max_unpacked_bytes: 1000,
            ..Default::default()
        };
        let big = vec![b'x'; 5000];
        let z = zip_of(&[("manifest.yaml", b"FullName: t.X\n"), ("big", &big)]);
        let r = inspect_package(&z, &limits).unwrap_err();
        assert_eq!(r.cause, Refusal::TooLarge, "{r:?}");
        assert_eq!(r.first().unwrap().kind, "archive-size");
        let escape = zip_of(&[("../x", b"x")]);
        let r = inspect_package(&escape, &limits).unwrap_err();
        assert_eq!(r.cause, Refusal::Archive);
        assert_eq!(r.first().unwrap().kind, "archive");
        assert!(
            r.first().unwrap().to_string().starts_with("../x: error:"),
            "{r:?}"
        );
    }

    #[test]
    fn archives_without_a_manifest_or_broken_are_refused() {
        let z = zip_of(&[("readme.txt", b"hi")]);
        let r = inspect_package(&z, &ArchiveLimits::default()).unwrap_err();
        assert_eq!(r.problems[0].kind, "manifest");
        let r = inspect_package(b"PK\x03\x04garbage", &ArchiveLimits::default()).unwrap_err();
        assert_eq!(r.problems[0].kind, "archive");
        let r = inspect_package(
            &zip_of(&[("manifest.yaml", b"Format: 9.9\nFullName: x\n")]),
            &ArchiveLimits::default(),
        )
        .unwrap_err();
        assert!(
            r.problems[0].message.contains("Unsupported format"),
            "{r:?}"
        );
    }
}
