//! A package catalog on disk: every folder under the catalog's directories
//! that holds a `manifest.yaml` is a package, known by its FullName and
//! Version (several versions of one name may sit side by side). Folders are
//! walked and manifests read on the first lookup only, and only manifests:
//! a package's classes are parsed when a resolution picks it.
//!
//! Resolution follows Murano: a package's `Require:` entries name packages
//! and version ranges (see [`VersionSpec`]), the highest version in range is
//! taken; a class named by an object model is looked up among the packages
//! whose manifest lists it. A session holds one version of each package, so
//! two ranges no single version meets are a conflict, and `Require:` cycles
//! are refused.

use super::version::{Version, VersionSpec};
use super::Manifest;
use crate::kind::DslKind;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;
use vetro_diag::SourceMap;

/// The package vetro bundles (its core and cloud libraries): a `Require:`
/// of it is met without the catalog.
pub const BUNDLED_PACKAGE: &str = "io.murano";

/// One package folder of the catalog, as its manifest describes it.
#[derive(Clone, Debug)]
pub struct CatalogEntry {
    /// The manifest's `FullName`.
    pub name: String,
    /// The manifest's `Version`.
    pub version: Version,
    root: PathBuf,
    requires: Vec<(String, Option<String>)>,
    /// Classes the manifest lists.
    classes: Vec<String>,
}

/// What resolution can fail on. Each error names both sides: what was
/// needed and who needed it, or the two folders that clash.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    #[error("{needed_by} requires package {name} ({spec}), {}", missing_why(.found, .searched))]
    /// No package of the name in the required range.
    Missing {
        /// The package required.
        name: String,
        /// The version range required.
        spec: String,
        /// Who required it.
        needed_by: String,
        /// Versions of `name` the catalog has (outside the range).
        found: Vec<String>,
        /// The catalog folders searched.
        searched: Vec<PathBuf>,
    },
    #[error("{needed_by} names class {class} ({spec}), which no package {}", no_class_why(.found, .searched))]
    /// No package in range defines the class an object model names.
    NoClass {
        /// The class named.
        class: String,
        /// The version range of its package.
        spec: String,
        /// Who named it.
        needed_by: String,
        /// Packages that define the class (outside the range).
        found: Vec<String>,
        /// The catalog folders searched.
        searched: Vec<PathBuf>,
    },
    #[error("package {name} {version} is in two folders: {} and {}", .first.display(), .second.display())]
    /// One package name and version in two folders.
    Duplicate {
        /// The package's name.
        name: String,
        /// Its version.
        version: String,
        /// The first folder holding it.
        first: PathBuf,
        /// The second folder holding it.
        second: PathBuf,
    },
    #[error("{needed_by} requires package {name} ({spec}), but {name} {chosen} is already used (taken for {chosen_by}); one session holds one version of a package")]
    /// Two requirements of one package no single version meets.
    Conflict {
        /// The package required.
        name: String,
        /// The version range required.
        spec: String,
        /// Who required it.
        needed_by: String,
        /// The version already chosen.
        chosen: String,
        /// Who the chosen version was taken for.
        chosen_by: String,
    },
    #[error("cyclic Require: {}", .0.join(" -> "))]
    /// Packages that require each other, in the order of the cycle.
    Cycle(Vec<String>),
    #[error("{needed_by}: {message}")]
    /// A `Require:` range that does not parse.
    BadRange {
        /// The package whose manifest has it.
        needed_by: String,
        /// What is wrong with the range.
        message: String,
    },
}

impl CatalogError {
    /// A stable kind for diagnostics and JSON output.
    fn kind(&self) -> DslKind {
        match self {
            CatalogError::Missing { .. } => DslKind::MissingPackage,
            CatalogError::NoClass { .. } => DslKind::UnknownClass,
            CatalogError::Duplicate { .. } => DslKind::DuplicatePackage,
            CatalogError::Conflict { .. } => DslKind::VersionConflict,
            CatalogError::Cycle(_) => DslKind::CyclicRequire,
            CatalogError::BadRange { .. } => DslKind::VersionRange,
        }
    }

    /// The error as a diagnostic of its kind.
    pub fn to_diagnostic(&self) -> vetro_diag::Diagnostic {
        vetro_diag::Diagnostic::error(self.kind(), self.to_string())
    }
}

fn searched_text(searched: &[PathBuf]) -> String {
    let dirs: Vec<String> = searched.iter().map(|d| d.display().to_string()).collect();
    if dirs.is_empty() {
        "no --packages directory was given".into()
    } else {
        format!("searched {}", dirs.join(", "))
    }
}

fn missing_why(found: &[String], searched: &[PathBuf]) -> String {
    if found.is_empty() {
        format!(
            "which no package folder provides ({})",
            searched_text(searched)
        )
    } else {
        format!(
            "which the catalog has only in other versions: {}",
            found.join(", ")
        )
    }
}

fn no_class_why(found: &[String], searched: &[PathBuf]) -> String {
    if found.is_empty() {
        format!("lists in its manifest ({})", searched_text(searched))
    } else {
        format!("in range defines; versions found: {}", found.join(", "))
    }
}

/// The manifests found under the catalog's directories.
#[derive(Debug, Default)]
struct Index {
    entries: Vec<CatalogEntry>,
    by_name: HashMap<String, Vec<usize>>,
    by_class: HashMap<String, Vec<usize>>,
    /// Folders with a `manifest.yaml` that could not be read, and why.
    unreadable: Vec<(PathBuf, String)>,
}

/// Packages under a list of directories, indexed on first use.
#[derive(Debug, Default)]
pub struct Catalog {
    dirs: Vec<PathBuf>,
    index: OnceLock<Index>,
}

impl Catalog {
    /// A catalog over `dirs`; nothing is read until a lookup needs it.
    pub fn new(dirs: &[PathBuf]) -> Catalog {
        Catalog {
            dirs: dirs.to_vec(),
            index: OnceLock::new(),
        }
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| build_index(&self.dirs))
    }

    /// Every package folder found, in path order.
    pub fn entries(&self) -> &[CatalogEntry] {
        &self.index().entries
    }

    /// Folders whose `manifest.yaml` could not be read, with the reason.
    pub fn unreadable(&self) -> &[(PathBuf, String)] {
        &self.index().unreadable
    }

    fn versions_of<'a>(
        &'a self,
        map: &'a HashMap<String, Vec<usize>>,
        key: &str,
    ) -> Vec<&'a CatalogEntry> {
        let entries = &self.index().entries;
        map.get(key)
            .map(|ids| ids.iter().map(|&i| &entries[i]).collect())
            .unwrap_or_default()
    }

    /// The highest version of package `name` in `spec`; two folders holding
    /// that version are an error.
    pub fn find(
        &self,
        name: &str,
        spec: &VersionSpec,
    ) -> Result<Option<&CatalogEntry>, CatalogError> {
        let index = self.index();
        pick(self.versions_of(&index.by_name, name), spec)
    }

    /// The highest version in `spec` of a package whose manifest lists `class`.
    pub fn find_class(
        &self,
        class: &str,
        spec: &VersionSpec,
    ) -> Result<Option<&CatalogEntry>, CatalogError> {
        let index = self.index();
        pick(self.versions_of(&index.by_class, class), spec)
    }

    fn versions_text(&self, map: &HashMap<String, Vec<usize>>, key: &str) -> Vec<String> {
        let mut v: Vec<&Version> = self
            .versions_of(map, key)
            .into_iter()
            .map(|e| &e.version)
            .collect();
        v.sort();
        v.dedup();
        v.iter().map(|v| v.to_string()).collect()
    }
}

fn pick<'a>(
    candidates: Vec<&'a CatalogEntry>,
    spec: &VersionSpec,
) -> Result<Option<&'a CatalogEntry>, CatalogError> {
    let Some(best) = spec.select(candidates.iter().map(|e| &e.version)) else {
        return Ok(None);
    };
    let mut same = candidates.into_iter().filter(|e| &e.version == best);
    let first = same.next();
    if let (Some(a), Some(b)) = (first, same.next()) {
        return Err(CatalogError::Duplicate {
            name: a.name.clone(),
            version: a.version.to_string(),
            first: a.root.clone(),
            second: b.root.clone(),
        });
    }
    Ok(first)
}

/// Package folders under `dirs`: a folder holding `manifest.yaml` is a
/// package and is not walked further (its resources may hold other files
/// of that name). Each real folder is walked once (links may loop).
fn package_folders(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut walked = HashSet::new();
    let mut todo: Vec<PathBuf> = dirs.iter().rev().cloned().collect();
    while let Some(dir) = todo.pop() {
        let Ok(real) = std::fs::canonicalize(&dir) else {
            continue;
        };
        if !walked.insert(real) {
            continue;
        }
        if dir.join("manifest.yaml").is_file() {
            out.push(dir);
            continue;
        }
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        subdirs.sort();
        todo.extend(subdirs.into_iter().rev());
    }
    out
}

fn build_index(dirs: &[PathBuf]) -> Index {
    let mut index = Index::default();
    for root in package_folders(dirs) {
        // Each manifest in a map of its own, dropped with it: the catalog
        // keeps names, not sources.
        let mut sources = SourceMap::new();
        let manifest = match Manifest::load(&root.join("manifest.yaml"), &mut sources) {
            Ok(m) => m,
            Err(d) => {
                let why = d.first().map(|d| d.message.clone()).unwrap_or_default();
                index.unreadable.push((root, why));
                continue;
            }
        };
        let version = match Version::coerce(&manifest.version) {
            Ok(v) => v,
            Err(e) => {
                index.unreadable.push((root, e));
                continue;
            }
        };
        let i = index.entries.len();
        index
            .by_name
            .entry(manifest.full_name.clone())
            .or_default()
            .push(i);
        for (class, _) in &manifest.classes {
            index.by_class.entry(class.clone()).or_default().push(i);
        }
        index.entries.push(CatalogEntry {
            name: manifest.full_name,
            version,
            root,
            requires: manifest.require,
            classes: manifest.classes.into_iter().map(|(c, _)| c).collect(),
        });
    }
    index
}

/// A class an object model names: `?.type` (`NAME[/VERSION][@PACKAGE]`),
/// with `?.classVersion` and `?.package` when the type string has none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRef {
    /// The class's full name.
    pub class: String,
    /// The version range of its package, when given.
    pub version: Option<String>,
    /// The package that defines it, when given.
    pub package: Option<String>,
}

impl ClassRef {
    /// A reference from a model's type string and its `classVersion` and `package`.
    pub fn parse(type_str: &str, class_version: Option<&str>, package: Option<&str>) -> ClassRef {
        let (rest, pkg) = match type_str.split_once('@') {
            Some((r, p)) => (r, Some(p)),
            None => (type_str, None),
        };
        let (class, version) = match rest.split_once('/') {
            Some((c, v)) => (c, Some(v)),
            None => (rest, None),
        };
        ClassRef {
            class: class.to_string(),
            version: version.or(class_version).map(str::to_string),
            package: pkg.or(package).map(str::to_string),
        }
    }

    /// The classes of every object of an object model, in first-seen order.
    pub fn in_model(model: &serde_json::Value) -> Vec<ClassRef> {
        let mut out: Vec<ClassRef> = Vec::new();
        let mut todo = vec![model];
        while let Some(v) = todo.pop() {
            match v {
                serde_json::Value::Object(map) => {
                    let sys = map.get("?");
                    let text = |k: &str| sys.and_then(|s| s.get(k)).and_then(|t| t.as_str());
                    if let Some(t) = text("type") {
                        let r = ClassRef::parse(t, text("classVersion"), text("package"));
                        if !out.contains(&r) {
                            out.push(r);
                        }
                    }
                    todo.extend(map.iter().filter(|(k, _)| *k != "?").map(|(_, v)| v).rev());
                }
                serde_json::Value::Array(items) => todo.extend(items.iter().rev()),
                _ => {}
            }
        }
        out
    }
}

/// A package a resolution took from the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The package's `FullName`.
    pub name: String,
    /// The version taken.
    pub version: Version,
    /// Its folder.
    pub root: PathBuf,
}

/// A package in the session being resolved.
#[derive(Debug)]
struct Chosen {
    version: Version,
    root: PathBuf,
    requires: Vec<(String, Option<String>)>,
    classes: Vec<String>,
    /// Who asked for it first (for conflict messages).
    by: String,
    given: bool,
}

enum Want {
    /// A package in a range, asked for by `by` (described for messages;
    /// `from` is its package name, when a package asked).
    Package {
        name: String,
        spec: Option<String>,
        by: String,
        from: Option<String>,
    },
    Class(ClassRef, String),
}

/// One resolution over a catalog: packages given by the caller, then what
/// they and an object model need.
pub struct Resolver<'c> {
    catalog: &'c Catalog,
    chosen: indexmap::IndexMap<String, Chosen>,
    todo: VecDeque<Want>,
    errors: Vec<CatalogError>,
}

fn describe(name: &str, c: &Chosen) -> String {
    format!("{name} {} ({})", c.version, c.root.display())
}

impl<'c> Resolver<'c> {
    /// A resolution over `catalog` that has chosen nothing yet.
    pub fn new(catalog: &'c Catalog) -> Resolver<'c> {
        Resolver {
            catalog,
            chosen: indexmap::IndexMap::new(),
            todo: VecDeque::new(),
            errors: Vec::new(),
        }
    }

    /// A package the caller loads itself (named on the command line): it
    /// stands for its name whatever the catalog holds, and its `Require:`
    /// entries are resolved.
    pub fn give(&mut self, pkg: &super::Package) {
        let version = Version::coerce(&pkg.version).unwrap_or_else(|_| Version::new(0, 0, 0));
        self.add(
            &pkg.name,
            version,
            pkg.root.clone(),
            pkg.requires.clone(),
            pkg.classes.keys().cloned().collect(),
            "the command line".into(),
            true,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        name: &str,
        version: Version,
        root: PathBuf,
        requires: Vec<(String, Option<String>)>,
        classes: Vec<String>,
        by: String,
        given: bool,
    ) {
        if self.chosen.contains_key(name) {
            return;
        }
        let chosen = Chosen {
            version,
            root,
            requires,
            classes,
            by,
            given,
        };
        let me = describe(name, &chosen);
        for (req, spec) in &chosen.requires {
            self.todo.push_back(Want::Package {
                name: req.clone(),
                spec: spec.clone(),
                by: me.clone(),
                from: Some(name.to_string()),
            });
        }
        self.chosen.insert(name.to_string(), chosen);
    }

    /// Take catalog entry `e` into the session, for `by`.
    fn take(&mut self, e: CatalogEntry, by: &str) {
        let given = false;
        self.add(
            &e.name,
            e.version,
            e.root,
            e.requires,
            e.classes,
            by.into(),
            given,
        );
    }

    /// Package `name` in range `spec` (Murano's notation; `None` is `==0`).
    pub fn require(&mut self, name: &str, spec: Option<&str>, by: &str) {
        self.todo.push_back(Want::Package {
            name: name.into(),
            spec: spec.map(str::to_string),
            by: by.into(),
            from: None,
        });
    }

    /// The package of a class an object model names.
    pub fn class(&mut self, class: ClassRef, by: &str) {
        self.todo.push_back(Want::Class(class, by.into()));
    }

    fn package(&mut self, name: &str, spec: Option<&str>, by: &str) -> Result<(), CatalogError> {
        if name == BUNDLED_PACKAGE {
            return Ok(());
        }
        let spec_v = VersionSpec::parse(spec).map_err(|message| CatalogError::BadRange {
            needed_by: by.into(),
            message,
        })?;
        if let Some(c) = self.chosen.get(name) {
            if spec_v.matches(&c.version) {
                return Ok(());
            }
            return Err(CatalogError::Conflict {
                name: name.into(),
                spec: spec_v.to_string(),
                needed_by: by.into(),
                chosen: c.version.to_string(),
                chosen_by: if c.given {
                    format!("the package given at {}", c.root.display())
                } else {
                    c.by.clone()
                },
            });
        }
        match self.catalog.find(name, &spec_v)? {
            Some(e) => {
                self.take(e.clone(), by);
                Ok(())
            }
            None => Err(CatalogError::Missing {
                name: name.into(),
                spec: spec_v.to_string(),
                needed_by: by.into(),
                found: self
                    .catalog
                    .versions_text(&self.catalog.index().by_name, name),
                searched: self.catalog.dirs.clone(),
            }),
        }
    }

    fn model_class(&mut self, r: &ClassRef, by: &str) -> Result<(), CatalogError> {
        if let Some(pkg) = &r.package {
            return self.package(pkg, r.version.as_deref(), by);
        }
        if self.chosen.values().any(|c| c.classes.contains(&r.class)) {
            return Ok(());
        }
        let spec =
            VersionSpec::parse(r.version.as_deref()).map_err(|message| CatalogError::BadRange {
                needed_by: by.into(),
                message,
            })?;
        match self.catalog.find_class(&r.class, &spec)? {
            Some(e) => {
                let e = e.clone();
                if self.chosen.contains_key(&e.name) {
                    // Another version of that package is in use already.
                    return self.package(&e.name, Some(&format!("=={}", e.version)), by);
                }
                self.take(e, by);
                Ok(())
            }
            None => Err(CatalogError::NoClass {
                class: r.class.clone(),
                spec: spec.to_string(),
                needed_by: by.into(),
                found: self
                    .catalog
                    .versions_text(&self.catalog.index().by_class, &r.class),
                searched: self.catalog.dirs.clone(),
            }),
        }
    }

    /// Resolve everything asked: the packages taken from the catalog, in the
    /// order they were first needed, or every problem found.
    pub fn finish(self) -> Result<Vec<Resolved>, Vec<CatalogError>> {
        let (found, errors) = self.finish_partial();
        if errors.is_empty() {
            Ok(found)
        } else {
            Err(errors)
        }
    }

    /// Resolve everything asked: what could be found and every problem
    /// (for a checker, which reports problems and goes on).
    pub fn finish_partial(mut self) -> (Vec<Resolved>, Vec<CatalogError>) {
        while let Some(want) = self.todo.pop_front() {
            let done = match &want {
                // A package requiring itself asks for nothing (as in Murano).
                Want::Package { name, from, .. } if from.as_ref() == Some(name) => Ok(()),
                Want::Package { name, spec, by, .. } => self.package(name, spec.as_deref(), by),
                Want::Class(r, by) => self.model_class(r, by),
            };
            if let Err(e) = done {
                if !self.errors.contains(&e) {
                    self.errors.push(e);
                }
            }
        }
        if let Some(cycle) = self.cycle() {
            self.errors.push(CatalogError::Cycle(cycle));
        }
        let found = self
            .chosen
            .into_iter()
            .filter(|(_, c)| !c.given)
            .map(|(name, c)| Resolved {
                name,
                version: c.version,
                root: c.root,
            })
            .collect();
        (found, self.errors)
    }

    /// A `Require:` cycle among the chosen packages (`A -> B -> A`), found
    /// depth first with an explicit stack.
    fn cycle(&self) -> Option<Vec<String>> {
        let edges = |name: &str| -> Vec<&str> {
            self.chosen
                .get(name)
                .map(|c| {
                    c.requires
                        .iter()
                        .map(|(r, _)| r.as_str())
                        .filter(|r| *r != name && self.chosen.contains_key(*r))
                        .collect()
                })
                .unwrap_or_default()
        };
        // 0: not seen, 1: on the current path, 2: done.
        let mut state: HashMap<&str, u8> = HashMap::new();
        for start in self.chosen.keys() {
            if state.contains_key(start.as_str()) {
                continue;
            }
            let mut path: Vec<(&str, Vec<&str>)> = vec![(start.as_str(), edges(start))];
            state.insert(start.as_str(), 1);
            while let Some((node, next)) = path.last_mut() {
                let node = *node;
                let Some(n) = next.pop() else {
                    state.insert(node, 2);
                    path.pop();
                    continue;
                };
                match state.get(n).copied().unwrap_or(0) {
                    1 => {
                        let from = path.iter().position(|(p, _)| *p == n).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            path[from..].iter().map(|(p, _)| p.to_string()).collect();
                        cycle.push(n.to_string());
                        return Some(cycle);
                    }
                    0 => {
                        state.insert(n, 1);
                        let e = edges(n);
                        path.push((n, e));
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

/// Load package folders `dirs` and everything they (and the classes of an
/// object model, `classes`) need from `catalog`: the given packages first,
/// then the dependencies in the order they were first needed. Only the
/// packages used are parsed.
pub fn load_with_dependencies(
    dirs: &[PathBuf],
    catalog: &Catalog,
    classes: &[ClassRef],
    sources: &mut SourceMap,
) -> Result<Vec<super::Package>, Vec<CatalogError>> {
    let mut packages: Vec<super::Package> = dirs
        .iter()
        .map(|d| super::Package::load_dir(d, sources))
        .collect();
    let mut resolver = Resolver::new(catalog);
    for p in &packages {
        resolver.give(p);
    }
    for c in classes {
        resolver.class(c.clone(), "the object model");
    }
    for dep in resolver.finish()? {
        packages.push(super::Package::load_dir(&dep.root, sources));
    }
    Ok(packages)
}

/// Package `name` from the catalog over `dirs` (its highest version in
/// range `spec`; `None`: its highest version), with everything it requires:
/// the package folders, the named one first.
pub fn resolve_package(
    dirs: &[PathBuf],
    name: &str,
    spec: Option<&str>,
) -> Result<Vec<Resolved>, Vec<CatalogError>> {
    resolve_in(&Catalog::new(dirs), name, spec, "the command line")
}

fn resolve_in(
    catalog: &Catalog,
    name: &str,
    spec: Option<&str>,
    by: &str,
) -> Result<Vec<Resolved>, Vec<CatalogError>> {
    let mut resolver = Resolver::new(catalog);
    resolver.require(name, Some(spec.unwrap_or("*")), by);
    resolver.finish()
}

/// The package folder providing `class` to `requiring` (a package loaded by
/// the caller): the highest version of a package whose manifest lists the
/// class, in the range `requiring`'s `Require:` gives that package (any
/// version when none), resolved with what it requires in turn
/// ([`resolve_package`]).
pub fn resolve_class(
    catalog: &Catalog,
    requiring: &super::Package,
    class: &str,
) -> Result<PathBuf, Vec<CatalogError>> {
    if requiring.classes.contains_key(class) {
        return Ok(requiring.root.clone());
    }
    let by = format!("package {}", requiring.name);
    let no_class = |spec: &str, found: Vec<String>| {
        vec![CatalogError::NoClass {
            class: class.into(),
            spec: spec.into(),
            needed_by: by.clone(),
            found,
            searched: catalog.dirs.clone(),
        }]
    };
    let required = |name: &str| {
        let spec = requiring.requires.iter().find(|(n, _)| n == name);
        match spec {
            Some((_, s)) => VersionSpec::parse(s.as_deref()),
            None => Ok(VersionSpec::any()),
        }
    };
    // The packages listing the class, in the range the requiring package
    // gives theirs: the highest such version.
    let mut best: Option<&CatalogEntry> = None;
    let by_class = catalog.versions_of(&catalog.index().by_class, class);
    for e in by_class {
        let range = required(&e.name).map_err(|message| {
            vec![CatalogError::BadRange {
                needed_by: by.clone(),
                message,
            }]
        })?;
        if range.matches(&e.version) && best.is_none_or(|b| e.version > b.version) {
            best = Some(e);
        }
    }
    let Some(entry) = best else {
        let versions = catalog.versions_text(&catalog.index().by_class, class);
        return Err(no_class("in the required range", versions));
    };
    let exact = format!("=={}", entry.version);
    resolve_in(catalog, &entry.name, Some(&exact), &by)?;
    Ok(entry.root.clone())
}

impl fmt::Display for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} ({})",
            self.name,
            self.version,
            self.root.display()
        )
    }
}
