//! Packages of a task: the classes a model names are looked up through the
//! embedder's resolver (the catalog: the highest version in range, own
//! project first, then public, at the versions the deployment is pinned
//! to), followed through parents and `Require:` (with its version ranges),
//! and unpacked once per archive into a cache folder.

use crate::archive::{self, ArchiveLimits};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vetro_dsl::package::{ClassRef, Package, Version, VersionSpec};

/// Why a task's packages could not be had: the task did not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    /// The embedder's resolver (the catalog) failed to answer.
    #[error("{0}")]
    Catalog(String),
    /// A package archive could not be unpacked into the package cache.
    #[error("{0}")]
    Unpack(String),
    /// The packages the task needs cannot be put together: a class
    /// version or `Require:` range that does not parse, a required package
    /// the catalog does not have, or two versions of one package.
    #[error("{0}")]
    Unresolved(String),
}

/// One package archive found by a resolver.
#[derive(Clone, Debug)]
pub struct PackageArchive {
    /// Identity of these bytes (a catalog id and version, a content hash):
    /// an archive is unpacked once per key.
    pub key: String,
    pub fqn: String,
    pub version: String,
    pub bytes: Arc<[u8]>,
}

/// Where a task's packages come from.
pub trait PackageResolver {
    /// The package defining class `class` in a version in `spec`, or `None`
    /// when no visible package does.
    fn by_class(&self, class: &str, spec: &VersionSpec) -> Result<Option<PackageArchive>, String>;
    /// The package named `fqn` in a version in `spec` (for `Require:` and
    /// static actions' `packageName`).
    fn by_name(&self, fqn: &str, spec: &VersionSpec) -> Result<Option<PackageArchive>, String>;
}

/// Murano's choice among the visible packages that match a name or class:
/// those in `spec` only, the project's own first, the highest version
/// among them. Versions that do not parse never match.
pub fn choose<T>(
    candidates: impl IntoIterator<Item = T>,
    version: impl Fn(&T) -> &str,
    own: impl Fn(&T) -> bool,
    spec: &VersionSpec,
) -> Option<T> {
    let in_range: Vec<(Version, bool, T)> = candidates
        .into_iter()
        .filter_map(|c| {
            let v = Version::coerce(version(&c)).ok()?;
            let mine = own(&c);
            spec.matches(&v).then_some((v, mine, c))
        })
        .collect();
    // Own before public, then the highest version.
    in_range
        .into_iter()
        .max_by(|(va, oa, _), (vb, ob, _)| oa.cmp(ob).then_with(|| va.cmp(vb)))
        .map(|(_, _, c)| c)
}

/// A package a task used, for pinning the deployment's versions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct UsedPackage {
    pub fqn: String,
    pub version: String,
    pub key: String,
}

/// Unpacked archives, one folder per key, shared by every task of a process.
#[derive(Clone, Debug)]
pub struct PackageCache {
    dir: PathBuf,
}

impl PackageCache {
    pub fn new(dir: impl Into<PathBuf>) -> PackageCache {
        PackageCache { dir: dir.into() }
    }

    /// The package root of `archive`, unpacking it on first use. Concurrent
    /// users (threads or processes) may unpack the same key at once: each
    /// unpacks into its own temporary folder and the first rename wins.
    pub fn unpack(
        &self,
        archive: &PackageArchive,
        limits: &ArchiveLimits,
    ) -> Result<PathBuf, String> {
        let target = self.dir.join(folder_name(&archive.key));
        if let Some(root) = archive::package_root(&target) {
            return Ok(root);
        }
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("package cache {}: {e}", self.dir.display()))?;
        let tmp = tempfile::Builder::new()
            .prefix(".unpack-")
            .tempdir_in(&self.dir)
            .map_err(|e| format!("package cache {}: {e}", self.dir.display()))?;
        archive::extract(&archive.bytes, tmp.path(), limits)
            .map_err(|e| format!("package {}: {e}", archive.fqn))?;
        let staged = tmp.keep();
        if std::fs::rename(&staged, &target).is_err() {
            // Another worker got there first; its copy is the same bytes.
            let _ = std::fs::remove_dir_all(&staged);
        }
        archive::package_root(&target)
            .ok_or_else(|| format!("package {}: the archive has no manifest.yaml", archive.fqn))
    }
}

/// A file-system-safe, collision-free folder name for a key.
fn folder_name(key: &str) -> String {
    let readable: String = key
        .chars()
        .take(40)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // FNV-1a: stable across processes and versions, unlike std's hasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{readable}-{h:016x}")
}

/// What resolution found: package roots to load and the packages used.
#[derive(Debug, Default)]
pub struct Resolved {
    pub roots: Vec<PathBuf>,
    pub used: Vec<UsedPackage>,
}

/// Work list of the resolution: classes and package names still to look up,
/// each with its version range and who asked (for messages).
struct Walk<'a> {
    resolver: &'a dyn PackageResolver,
    cache: &'a PackageCache,
    limits: &'a ArchiveLimits,
    classes: VecDeque<(String, VersionSpec)>,
    names: VecDeque<(String, VersionSpec, String)>,
    defined: HashSet<String>,
    seen_keys: HashSet<String>,
    /// Package name -> the version taken: one version per package.
    taken: HashMap<String, String>,
    out: Resolved,
}

impl Walk<'_> {
    fn add(&mut self, archive: PackageArchive) -> Result<(), TaskError> {
        if !self.seen_keys.insert(archive.key.clone()) {
            return Ok(());
        }
        self.taken
            .insert(archive.fqn.clone(), archive.version.clone());
        let root = self
            .cache
            .unpack(&archive, self.limits)
            .map_err(TaskError::Unpack)?;
        // Only what resolution needs: names, parents and requirements.
        let mut sources = vetro_diag::SourceMap::new();
        let pkg = Package::load_dir(&root, &mut sources);
        for c in pkg.classes.values() {
            self.defined.insert(c.name.clone());
            self.classes
                .extend(c.extends.iter().map(|p| (p.clone(), VersionSpec::any())));
        }
        for (name, spec) in &pkg.requires {
            if *name == pkg.name {
                continue;
            }
            let by = format!("package {} {}", archive.fqn, archive.version);
            let range = VersionSpec::parse(spec.as_deref())
                .map_err(|e| TaskError::Unresolved(format!("{by}: Require: {name}: {e}")))?;
            self.names.push_back((name.clone(), range, by));
        }
        self.out.used.push(UsedPackage {
            fqn: archive.fqn,
            version: archive.version,
            key: archive.key,
        });
        self.out.roots.push(root);
        Ok(())
    }

    fn package(&mut self, name: &str, range: &VersionSpec, by: &str) -> Result<(), TaskError> {
        if name == vetro_dsl::package::BUNDLED_PACKAGE {
            return Ok(());
        }
        if let Some(v) = self.taken.get(name) {
            return match Version::coerce(v) {
                Ok(v) if range.matches(&v) => Ok(()),
                _ => Err(TaskError::Unresolved(format!(
                    "{by} requires package {name} ({range}), but {name} {v} is already used; \
                     one deployment holds one version of a package"
                ))),
            };
        }
        match self
            .resolver
            .by_name(name, range)
            .map_err(TaskError::Catalog)?
        {
            Some(a) => self.add(a),
            None => Err(TaskError::Unresolved(format!(
                "{by} requires package {name} ({range}), which the catalog does not have"
            ))),
        }
    }

    fn run(mut self) -> Result<Resolved, TaskError> {
        loop {
            if let Some((name, range, by)) = self.names.pop_front() {
                self.package(&name, &range, &by)?;
                continue;
            }
            let Some((class, range)) = self.classes.pop_front() else {
                break;
            };
            if self.defined.contains(&class) || is_builtin(&class) {
                continue;
            }
            // Looked up once: an unknown class is the engine's error to report.
            self.defined.insert(class.clone());
            let found = self
                .resolver
                .by_class(&class, &range)
                .map_err(TaskError::Catalog)?;
            if let Some(a) = found {
                self.add(a)?;
            }
        }
        self.out.used.sort();
        Ok(self.out)
    }
}

/// Classes of the core and cloud libraries, which no catalog package provides.
fn is_builtin(class: &str) -> bool {
    static BUILTIN: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    BUILTIN
        .get_or_init(|| {
            let lib = vetro_dsl::host::Library::load(&[]);
            lib.packages
                .iter()
                .flat_map(|p| p.classes.keys().cloned())
                .collect()
        })
        .contains(class)
}

/// What a task asks for: classes (as an object model names them, with their
/// version hints: a class without one takes the highest visible version)
/// and packages by name, each in a range.
#[derive(Clone, Debug, Default)]
pub struct Wanted {
    pub classes: Vec<ClassRef>,
    pub packages: Vec<(String, VersionSpec)>,
}

impl Wanted {
    /// A class without a version hint.
    pub fn class(&mut self, name: &str) {
        self.classes.push(ClassRef::parse(name, None, None));
    }
}

/// Resolve what `wanted` names with everything it needs.
pub fn resolve(
    resolver: &dyn PackageResolver,
    cache: &PackageCache,
    limits: &ArchiveLimits,
    wanted: &Wanted,
) -> Result<Resolved, TaskError> {
    let mut walk = Walk {
        resolver,
        cache,
        limits,
        classes: VecDeque::new(),
        names: VecDeque::new(),
        defined: HashSet::new(),
        seen_keys: HashSet::new(),
        taken: HashMap::new(),
        out: Resolved::default(),
    };
    for c in &wanted.classes {
        let range = match &c.version {
            Some(v) => VersionSpec::parse(Some(v)).map_err(|e| {
                TaskError::Unresolved(format!("class {}: version {v:?}: {e}", c.class))
            })?,
            None => VersionSpec::any(),
        };
        match &c.package {
            // `Class@package`: that package, the class must be one of its own.
            Some(p) => walk
                .names
                .push_back((p.clone(), range, format!("class {}", c.class))),
            None => walk.classes.push_back((c.class.clone(), range)),
        }
    }
    for (name, range) in &wanted.packages {
        walk.names
            .push_back((name.clone(), range.clone(), "the request".into()));
    }
    walk.run()
}

/// A resolver over packages in memory (tests, the CLI): the highest version
/// in range wins, as in the catalog.
#[derive(Default)]
pub struct MemoryResolver {
    packages: Vec<(PackageArchive, Vec<String>)>,
}

impl MemoryResolver {
    /// Add an archive; its classes are read from the archive itself.
    pub fn add(&mut self, bytes: Vec<u8>) -> Result<&mut Self, crate::inspect::Rejection> {
        let info = crate::inspect::inspect_package(&bytes, &ArchiveLimits::default())?;
        let key = format!("{}@{}#{}", info.fqn, info.version, self.packages.len());
        self.packages.push((
            PackageArchive {
                key,
                fqn: info.fqn,
                version: info.version,
                bytes: bytes.into(),
            },
            info.class_names,
        ));
        Ok(self)
    }
}

impl MemoryResolver {
    fn pick(
        &self,
        spec: &VersionSpec,
        matches: impl Fn(&(PackageArchive, Vec<String>)) -> bool,
    ) -> Option<PackageArchive> {
        let found = self.packages.iter().filter(|p| matches(p));
        choose(found, |(a, _)| &a.version, |_| false, spec).map(|(a, _)| a.clone())
    }
}

impl PackageResolver for MemoryResolver {
    fn by_class(&self, class: &str, spec: &VersionSpec) -> Result<Option<PackageArchive>, String> {
        Ok(self.pick(spec, |(_, classes)| classes.iter().any(|c| c == class)))
    }
    fn by_name(&self, fqn: &str, spec: &VersionSpec) -> Result<Option<PackageArchive>, String> {
        Ok(self.pick(spec, |(a, _)| a.fqn == fqn))
    }
}

/// Zip a package folder (tests and tools that start from a folder).
pub fn zip_dir(dir: &Path) -> std::io::Result<Vec<u8>> {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let mut entries = Vec::with_capacity(files.len());
    for rel in files {
        let data = std::fs::read(dir.join(&rel))?;
        entries.push((rel.to_string_lossy().replace('\\', "/"), data));
    }
    vetro_dsl::package::write_zip(entries)
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            collect_files(root, &p, out)?;
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_path_buf());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_choice_is_in_range_own_first_then_highest() {
        let any = VersionSpec::any();
        let zero = VersionSpec::parse(None).unwrap();
        let pkgs = [
            ("1.0.0", false),
            ("0.2", false),
            ("0.1", true),
            ("junk", true),
        ];
        let pick = |spec: &VersionSpec| choose(pkgs.iter(), |p| p.0, |p| p.1, spec).map(|p| p.0);
        assert_eq!(pick(&zero), Some("0.1"));
        assert_eq!(pick(&any), Some("0.1"));
        assert_eq!(
            pick(&VersionSpec::parse(Some(">=0.2")).unwrap()),
            Some("1.0.0")
        );
        assert_eq!(
            pick(&VersionSpec::parse(Some("==0.2")).unwrap()),
            Some("0.2")
        );
        assert_eq!(pick(&VersionSpec::parse(Some("2")).unwrap()), None);
    }

    /// A package archive: `name` at `version`, one class, the `require` lines.
    fn package(name: &str, version: &str, require: &str) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let short = name.rsplit('.').next().unwrap();
        let manifest = format!(
            "Format: 1.4\nType: Library\nFullName: {name}\nVersion: {version}\n\
             Require:\n{require}Classes:\n  {name}: C.yaml\n"
        );
        std::fs::write(dir.path().join("manifest.yaml"), manifest).unwrap();
        std::fs::create_dir(dir.path().join("Classes")).unwrap();
        let class = format!("Namespaces:\n  =: t\nName: {short}\n");
        std::fs::write(dir.path().join("Classes/C.yaml"), class).unwrap();
        zip_dir(dir.path()).unwrap()
    }

    #[test]
    fn require_ranges_take_the_highest_version_in_range() {
        let mut r = MemoryResolver::default();
        for v in ["1.0.0", "1.4.2", "2.0.0"] {
            r.add(package("t.Lib", v, "")).unwrap();
        }
        r.add(package("t.App", "0.1", "  t.Lib: '<2'\n")).unwrap();
        r.add(package("t.Old", "0.1", "  t.Lib: '==1.0'\n"))
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cache = PackageCache::new(dir.path());
        let limits = ArchiveLimits::default();
        let mut want = Wanted::default();
        want.class("t.App");
        let got = resolve(&r, &cache, &limits, &want).unwrap();
        let versions: Vec<(&str, &str)> = got
            .used
            .iter()
            .map(|u| (u.fqn.as_str(), u.version.as_str()))
            .collect();
        assert_eq!(versions, [("t.App", "0.1.0"), ("t.Lib", "1.4.2")]);
        // Two ranges one version cannot meet are refused, naming both.
        want.class("t.Old");
        let e = resolve(&r, &cache, &limits, &want).unwrap_err();
        assert!(matches!(e, TaskError::Unresolved(_)), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("t.Old") && e.contains("t.Lib 1.4.2"), "{e}");
        // A model's version hint is a range too.
        let mut want = Wanted::default();
        want.classes.push(ClassRef::parse("t.Lib/1.0", None, None));
        let got = resolve(&r, &cache, &limits, &want).unwrap();
        assert_eq!(got.used[0].version, "1.0.0");
    }

    #[test]
    fn folder_names_are_safe_and_distinct() {
        let a = folder_name("../../etc");
        assert!(!a.contains('/'));
        assert_ne!(folder_name("a/b"), folder_name("a_b"));
    }

    #[test]
    fn the_example_resolves_and_unpacks_once() {
        let mut r = MemoryResolver::default();
        r.add(crate::testdata::example_zip()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cache = PackageCache::new(dir.path());
        let mut classes = Wanted::default();
        classes.class("io.vetro.examples.WebServer");
        classes.class("io.murano.Environment");
        let got = resolve(&r, &cache, &ArchiveLimits::default(), &classes).unwrap();
        assert_eq!(got.used.len(), 1);
        assert_eq!(got.used[0].fqn, "io.vetro.examples.WebServer");
        assert!(got.roots[0].join("manifest.yaml").is_file());
        let again = resolve(&r, &cache, &ArchiveLimits::default(), &classes).unwrap();
        assert_eq!(again.roots, got.roots);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
