//! The classes a check can see: every loaded package plus the bundled core and
//! cloud libraries, with the methods a class reaches through its parents.

use crate::host::bundled_classes;
use crate::kind::DslKind;
use crate::package::{Package, BUNDLED_PACKAGE};
use crate::syntax::{ClassDef, MethodUsage};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use vetro_diag::Diagnostic;

/// The root of every class hierarchy.
const OBJECT: &str = "io.murano.Object";

/// Class definitions by full name, with the package defining each.
pub(super) struct ClassIndex {
    defs: HashMap<String, Arc<ClassDef>>,
    owners: HashMap<String, String>,
    /// Every method name some class defines.
    method_names: HashSet<String>,
}

/// How far a check sees the classes a package can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    /// Packages checked on their own (an upload to a catalog): what they
    /// require may live elsewhere, so a class found nowhere is a warning.
    Open,
    /// Packages with every dependency resolved: a class found nowhere, or
    /// in a package the user does not require, fails to load (an error).
    Closed,
}

impl Scope {
    /// A finding about a class that cannot be found, at this scope's severity.
    pub(super) fn finding(self, kind: DslKind, message: String) -> Diagnostic {
        match self {
            Scope::Open => Diagnostic::warning(kind, message),
            Scope::Closed => Diagnostic::error(kind, message),
        }
    }
}

/// Where a class name leads, seen from one package.
enum Lookup<'a> {
    /// Defined by the package itself, a package it requires, or the bundled library.
    Visible,
    /// Defined only by package `.0`, which the package does not require.
    NotRequired(&'a str),
    Unknown,
}

/// The package a class is looked up from: its name and `Require:` names.
pub(super) struct Viewer<'a> {
    package: &'a str,
    requires: Vec<&'a str>,
}

impl<'a> Viewer<'a> {
    pub(super) fn of(p: &'a Package) -> Viewer<'a> {
        Viewer {
            package: &p.name,
            requires: p.requires.iter().map(|(n, _)| n.as_str()).collect(),
        }
    }
}

impl ClassIndex {
    /// Index the loaded packages, then the bundled cloud and core libraries,
    /// in the order a run uses (the first definition of a name wins; the
    /// cloud library's TestFixture completes the core declaration).
    pub(super) fn new(packages: &[Package]) -> ClassIndex {
        let mut defs = HashMap::new();
        let mut owners = HashMap::new();
        for p in packages {
            for (name, def) in &p.classes {
                defs.entry(name.clone()).or_insert_with(|| def.clone());
                owners.entry(name.clone()).or_insert_with(|| p.name.clone());
            }
        }
        for (name, def) in bundled_classes() {
            defs.entry(name.clone()).or_insert_with(|| def.clone());
            owners
                .entry(name.clone())
                .or_insert_with(|| BUNDLED_PACKAGE.to_string());
        }
        let method_names = defs
            .values()
            .flat_map(|d| d.methods.keys().cloned())
            .collect();
        ClassIndex {
            defs,
            owners,
            method_names,
        }
    }

    /// Whether some class defines a method `name`.
    pub(super) fn is_method_name(&self, name: &str) -> bool {
        self.method_names.contains(name)
    }

    /// Where `name` leads from `viewer`: as Murano loads classes, a package
    /// sees its own classes, the core library's and those of the packages
    /// its manifest requires (directly).
    fn lookup(&self, viewer: &Viewer, name: &str) -> Lookup<'_> {
        match self.owners.get(name) {
            None => Lookup::Unknown,
            Some(owner)
                if owner == viewer.package
                    || owner == BUNDLED_PACKAGE
                    || viewer.requires.contains(&owner.as_str()) =>
            {
                Lookup::Visible
            }
            Some(owner) => Lookup::NotRequired(owner),
        }
    }

    /// The finding for class `name`, which `subject` (`class A extends`,
    /// `contract names class`) refers to from `viewer`: none when visible.
    pub(super) fn reference_problem(
        &self,
        viewer: &Viewer,
        scope: Scope,
        name: &str,
        subject: &str,
    ) -> Option<Diagnostic> {
        match self.lookup(viewer, name) {
            Lookup::Visible => None,
            Lookup::Unknown => Some(scope.finding(
                DslKind::UnknownClass,
                format!(
                    "{subject} {name}, which no loaded package defines \
                     (nor the bundled {BUNDLED_PACKAGE} library)"
                ),
            )),
            Lookup::NotRequired(owner) => Some(scope.finding(
                DslKind::ClassNotRequired,
                format!(
                    "{subject} {name}, which package {owner} defines, but the manifest of {} \
                     does not Require {owner} (a package sees only its own classes, the core \
                     library's and those of the packages it requires)",
                    viewer.package
                ),
            )),
        }
    }

    /// `class` and all its ancestors, or `None` when one of them is not defined
    /// by any visible package (then nothing can be said about its methods).
    fn lineage(&self, class: &str) -> Option<Vec<&Arc<ClassDef>>> {
        let mut out: Vec<&Arc<ClassDef>> = Vec::new();
        let mut seen = HashSet::new();
        let mut todo = vec![class.to_string()];
        while let Some(name) = todo.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let def = self.defs.get(&name)?;
            if def.extends.is_empty() && name != OBJECT {
                todo.push(OBJECT.to_string());
            }
            todo.extend(def.extends.iter().cloned());
            out.push(def);
        }
        Some(out)
    }

    /// The path by which `class` reaches itself through `Extends`
    /// (`A -> B -> A`), if it does.
    pub(super) fn extends_cycle(&self, class: &str) -> Option<Vec<String>> {
        // Depth-first over parents with an explicit path; each class once.
        let mut seen = HashSet::new();
        let mut path: Vec<(String, usize)> = vec![(class.to_string(), 0)];
        while let Some((name, next)) = path.last_mut() {
            let parent = self
                .defs
                .get(name.as_str())
                .and_then(|d| d.extends.get(*next))
                .cloned();
            *next += 1;
            let Some(parent) = parent else {
                path.pop();
                continue;
            };
            if parent == class {
                let mut cycle: Vec<String> = path.iter().map(|(n, _)| n.clone()).collect();
                cycle.push(parent);
                return Some(cycle);
            }
            if seen.insert(parent.clone()) {
                path.push((parent, 0));
            }
        }
        None
    }

    /// Names of the methods callable on an object of `class`: its own and its
    /// ancestors', plus the extension methods of the classes it imports.
    /// `None` when a parent or an import is unknown.
    pub(super) fn callable_methods(&self, class: &str) -> Option<HashSet<String>> {
        let lineage = self.lineage(class)?;
        let mut names: HashSet<String> = lineage
            .iter()
            .flat_map(|d| d.methods.keys().cloned())
            .collect();
        for def in &lineage {
            for imp in &def.import {
                let full = def.namespaces.resolve(imp).ok()?;
                let idef = self.defs.get(&full)?;
                names.extend(
                    idef.methods
                        .iter()
                        .filter(|(_, m)| m.usage == MethodUsage::Extension)
                        .map(|(n, _)| n.clone()),
                );
            }
        }
        Some(names)
    }
}
