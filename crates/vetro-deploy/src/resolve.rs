//! Packages of a task: the classes a model names are looked up through the
//! embedder's resolver (the catalog: own project first, then public, at the
//! versions the deployment is pinned to), followed through parents and
//! `Require:`, and unpacked once per archive into a cache folder.

use crate::archive::{self, ArchiveLimits};
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use vetro_dsl::package::Package;

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
    /// The package defining class `class`, or `None` when no visible package does.
    fn by_class(&self, class: &str) -> Result<Option<PackageArchive>, String>;
    /// The package named `fqn` (for `Require:` and static actions' `packageName`).
    fn by_name(&self, fqn: &str) -> Result<Option<PackageArchive>, String>;
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

/// Class names of every object in a model tree (`?.type`, version and package
/// hints stripped), in first-seen order.
pub fn model_classes(model: &Json, out: &mut Vec<String>) {
    match model {
        Json::Object(map) => {
            if let Some(Json::String(t)) = map.get("?").and_then(|h| h.get("type")) {
                let name = vetro_policy::facts::strip_type_name(t).to_string();
                if !out.contains(&name) {
                    out.push(name);
                }
            }
            for (k, v) in map {
                if k != "?" {
                    model_classes(v, out);
                }
            }
        }
        Json::Array(items) => items.iter().for_each(|v| model_classes(v, out)),
        _ => {}
    }
}

/// What resolution found: package roots to load and the packages used.
#[derive(Debug, Default)]
pub struct Resolved {
    pub roots: Vec<PathBuf>,
    pub used: Vec<UsedPackage>,
}

/// Work list of the resolution: classes and package names still to look up.
struct Walk<'a> {
    resolver: &'a dyn PackageResolver,
    cache: &'a PackageCache,
    limits: &'a ArchiveLimits,
    classes: VecDeque<String>,
    names: VecDeque<String>,
    defined: HashSet<String>,
    seen_keys: HashSet<String>,
    seen_names: HashSet<String>,
    out: Resolved,
}

impl Walk<'_> {
    fn add(&mut self, archive: PackageArchive) -> Result<(), String> {
        if !self.seen_keys.insert(archive.key.clone()) {
            return Ok(());
        }
        self.seen_names.insert(archive.fqn.clone());
        let root = self.cache.unpack(&archive, self.limits)?;
        // Only what resolution needs: names, parents and requirements.
        let mut sources = vetro_diag::SourceMap::new();
        let pkg = Package::load_dir(&root, &mut sources);
        for c in pkg.classes.values() {
            self.defined.insert(c.name.clone());
            self.classes.extend(c.extends.iter().cloned());
        }
        self.names
            .extend(pkg.requires.iter().map(|(n, _)| n.clone()));
        self.out.used.push(UsedPackage {
            fqn: archive.fqn,
            version: archive.version,
            key: archive.key,
        });
        self.out.roots.push(root);
        Ok(())
    }

    fn run(mut self) -> Result<Resolved, String> {
        loop {
            if let Some(name) = self.names.pop_front() {
                if self.seen_names.insert(name.clone()) {
                    if let Some(a) = self.resolver.by_name(&name)? {
                        self.add(a)?;
                    }
                }
                continue;
            }
            let Some(class) = self.classes.pop_front() else {
                break;
            };
            if self.defined.contains(&class) || is_builtin(&class) {
                continue;
            }
            // Looked up once: an unknown class is the engine's error to report.
            self.defined.insert(class.clone());
            if let Some(a) = self.resolver.by_class(&class)? {
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

/// Resolve `classes` and `names` (package FQNs) with everything they need.
pub fn resolve(
    resolver: &dyn PackageResolver,
    cache: &PackageCache,
    limits: &ArchiveLimits,
    classes: &[String],
    names: &[String],
) -> Result<Resolved, String> {
    Walk {
        resolver,
        cache,
        limits,
        classes: classes.iter().cloned().collect(),
        names: names.iter().cloned().collect(),
        defined: HashSet::new(),
        seen_keys: HashSet::new(),
        seen_names: HashSet::new(),
        out: Resolved::default(),
    }
    .run()
}

/// A resolver over packages in memory (tests, the CLI): the first package
/// defining a class wins, as the first visible one does in the catalog.
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

impl PackageResolver for MemoryResolver {
    fn by_class(&self, class: &str) -> Result<Option<PackageArchive>, String> {
        Ok(self
            .packages
            .iter()
            .find(|(_, classes)| classes.iter().any(|c| c == class))
            .map(|(a, _)| a.clone()))
    }
    fn by_name(&self, fqn: &str) -> Result<Option<PackageArchive>, String> {
        Ok(self
            .packages
            .iter()
            .find(|(a, _)| a.fqn == fqn)
            .map(|(a, _)| a.clone()))
    }
}

/// Zip a package folder (tests and tools that start from a folder).
pub fn zip_dir(dir: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for rel in files {
        let data = std::fs::read(dir.join(&rel))?;
        w.start_file(rel.to_string_lossy().replace('\\', "/"), opts)
            .map_err(std::io::Error::other)?;
        w.write_all(&data)?;
    }
    Ok(w.finish().map_err(std::io::Error::other)?.into_inner())
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
    fn model_classes_strip_hints_and_dedupe() {
        let m = serde_json::json!({"?": {"type": "a.B/1.0@pkg", "id": "1"},
            "xs": [{"?": {"type": "a.C", "id": "2"}}, {"?": {"type": "a.B", "id": "3"}}]});
        let mut out = Vec::new();
        model_classes(&m, &mut out);
        assert_eq!(out, ["a.B", "a.C"]);
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
        let classes = vec![
            "io.vetro.examples.WebServer".to_string(),
            "io.murano.Environment".into(),
        ];
        let got = resolve(&r, &cache, &ArchiveLimits::default(), &classes, &[]).unwrap();
        assert_eq!(got.used.len(), 1);
        assert_eq!(got.used[0].fqn, "io.vetro.examples.WebServer");
        assert!(got.roots[0].join("manifest.yaml").is_file());
        let again = resolve(&r, &cache, &ArchiveLimits::default(), &classes, &[]).unwrap();
        assert_eq!(again.roots, got.roots);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
