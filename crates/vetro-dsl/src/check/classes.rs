//! The classes a check can see: every loaded package plus the bundled core and
//! cloud libraries, with the methods a class reaches through its parents.

use crate::package::Package;
use crate::syntax::{ClassDef, MethodUsage};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use vetro_diag::SourceMap;

/// Classes every package can reach without declaring them.
pub const CORE_PREFIX: &str = "io.murano.";

/// The root of every class hierarchy.
const OBJECT: &str = "io.murano.Object";

/// The classes of the bundled cloud and core libraries, in that order,
/// parsed once per process (every check used to parse both again).
fn bundled_classes() -> &'static [(String, Arc<ClassDef>)] {
    static BUNDLED: OnceLock<Vec<(String, Arc<ClassDef>)>> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        // Their spans live in this private map; the checks never report
        // inside the bundled libraries.
        let mut sources = SourceMap::new();
        let packages = [
            crate::host::cloud_package(&mut sources),
            crate::core::core_package(&mut sources),
        ];
        packages
            .iter()
            .flat_map(|p| p.classes.iter().map(|(n, d)| (n.clone(), d.clone())))
            .collect()
    })
}

/// Class definitions by full name.
pub struct ClassIndex {
    defs: HashMap<String, Arc<ClassDef>>,
}

impl ClassIndex {
    /// Index the loaded packages, then the bundled cloud and core libraries,
    /// in the order a run uses (the first definition of a name wins; the
    /// cloud library's TestFixture completes the core declaration).
    pub fn new(packages: &[Package]) -> ClassIndex {
        let mut defs = HashMap::new();
        for p in packages {
            for (name, def) in &p.classes {
                defs.entry(name.clone()).or_insert_with(|| def.clone());
            }
        }
        for (name, def) in bundled_classes() {
            defs.entry(name.clone()).or_insert_with(|| def.clone());
        }
        ClassIndex { defs }
    }

    pub fn get(&self, name: &str) -> Option<&Arc<ClassDef>> {
        self.defs.get(name)
    }

    /// Whether a class name is defined somewhere or belongs to the core
    /// namespace (the full core library is not bundled, so those always count).
    pub fn is_known(&self, name: &str) -> bool {
        self.defs.contains_key(name) || name.starts_with(CORE_PREFIX)
    }

    /// `class` and all its ancestors, or `None` when one of them is not defined
    /// by any visible package (then nothing can be said about its methods).
    pub fn lineage(&self, class: &str) -> Option<Vec<&Arc<ClassDef>>> {
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
    pub fn extends_cycle(&self, class: &str) -> Option<Vec<String>> {
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
    pub fn callable_methods(&self, class: &str) -> Option<HashSet<String>> {
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
