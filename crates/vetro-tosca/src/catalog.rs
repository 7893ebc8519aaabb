//! The type catalog: every declared type by construct, with inheritance.

use indexmap::IndexMap;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use vetro_diag::Span;
use vetro_yaml::Node;

/// The kinds of TOSCA types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Construct {
    Node,
    Capability,
    Relationship,
    Data,
    Artifact,
    Interface,
    Group,
    Policy,
}

impl Construct {
    pub const ALL: [Construct; 8] = [
        Construct::Data,
        Construct::Artifact,
        Construct::Capability,
        Construct::Interface,
        Construct::Relationship,
        Construct::Node,
        Construct::Group,
        Construct::Policy,
    ];

    /// The service template section declaring types of this construct.
    pub fn section(self) -> &'static str {
        match self {
            Construct::Node => "node_types",
            Construct::Capability => "capability_types",
            Construct::Relationship => "relationship_types",
            Construct::Data => "data_types",
            Construct::Artifact => "artifact_types",
            Construct::Interface => "interface_types",
            Construct::Group => "group_types",
            Construct::Policy => "policy_types",
        }
    }

    /// Prefix of the normative type names (`tosca.nodes.`).
    pub fn normative_prefix(self) -> &'static str {
        match self {
            Construct::Node => "tosca.nodes.",
            Construct::Capability => "tosca.capabilities.",
            Construct::Relationship => "tosca.relationships.",
            Construct::Data => "tosca.datatypes.",
            Construct::Artifact => "tosca.artifacts.",
            Construct::Interface => "tosca.interfaces.",
            Construct::Group => "tosca.groups.",
            Construct::Policy => "tosca.policies.",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Construct::Node => "node type",
            Construct::Capability => "capability type",
            Construct::Relationship => "relationship type",
            Construct::Data => "data type",
            Construct::Artifact => "artifact type",
            Construct::Interface => "interface type",
            Construct::Group => "group type",
            Construct::Policy => "policy type",
        }
    }
}

/// One declared type.
#[derive(Debug, Clone)]
pub struct TypeDef {
    pub name: String,
    pub construct: Construct,
    /// The definition mapping (short forms expanded).
    pub def: Node,
    /// Index of the declaring file among the loaded files; `None` for built-ins.
    pub file: Option<usize>,
    pub key_span: Span,
    pub parent: Option<String>,
    /// The section it was declared in (kept when the type is reclassified).
    pub section: &'static str,
}

/// The primitive data types of TOSCA.
pub const PRIMITIVES: [&str; 13] = [
    "string",
    "integer",
    "float",
    "boolean",
    "timestamp",
    "null",
    "list",
    "map",
    "version",
    "range",
    "scalar-unit.size",
    "scalar-unit.time",
    "scalar-unit.frequency",
];

/// A section merged along a hierarchy: entry name → definition.
pub type Merged = Rc<IndexMap<String, Node>>;

/// Every declared type, indexed by construct and name.
#[derive(Debug, Default)]
pub struct Catalog {
    pub types: Vec<TypeDef>,
    index: HashMap<(Construct, String), usize>,
    /// Namespace prefixes declared by imports (`namespace_prefix`).
    pub prefixes: Vec<String>,
    merged: RefCell<HashMap<(usize, &'static str), Merged>>,
}

impl Catalog {
    /// Add a type; on a duplicate name the index of the first declaration.
    pub fn add(&mut self, def: TypeDef) -> Result<usize, usize> {
        let key = (def.construct, def.name.clone());
        if let Some(&existing) = self.index.get(&key) {
            return Err(existing);
        }
        let i = self.types.len();
        self.index.insert(key, i);
        self.types.push(def);
        Ok(i)
    }

    /// Move types whose parent exists only as another construct to that
    /// construct (a capability type declared under `node_types`, say):
    /// tosca-parser keeps all types in one namespace and accepts that.
    pub fn reclassify_by_parent(&mut self) {
        loop {
            let mut moved = false;
            for i in 0..self.types.len() {
                let t = &self.types[i];
                let Some(p) = t.parent.clone() else { continue };
                if self.lookup(t.construct, &p).is_some() {
                    continue;
                }
                let other = Construct::ALL
                    .into_iter()
                    .find(|&c| c != t.construct && self.lookup(c, &p).is_some());
                let Some(c) = other else { continue };
                let key = (c, t.name.clone());
                if self.index.contains_key(&key) {
                    continue;
                }
                self.index.remove(&(t.construct, t.name.clone()));
                self.index.insert(key, i);
                self.types[i].construct = c;
                moved = true;
            }
            if !moved {
                break;
            }
        }
    }

    pub fn get(&self, i: usize) -> &TypeDef {
        &self.types[i]
    }

    /// Find a type by name, also by short name (`Compute`, `tosca:Compute`)
    /// and with a declared namespace prefix (`ns:Type`).
    pub fn lookup(&self, c: Construct, name: &str) -> Option<usize> {
        if let Some(&i) = self.index.get(&(c, name.to_string())) {
            return Some(i);
        }
        let bare = match name.split_once(':') {
            Some((prefix, rest))
                if prefix == "tosca" || self.prefixes.iter().any(|p| p == prefix) =>
            {
                if let Some(&i) = self.index.get(&(c, rest.to_string())) {
                    return Some(i);
                }
                rest
            }
            _ => name,
        };
        let long = format!("{}{bare}", c.normative_prefix());
        if let Some(&i) = self.index.get(&(c, long)) {
            return Some(i);
        }
        // A normative type by its last name segment (`PortDef` for
        // `tosca.datatypes.network.PortDef`), when that is unambiguous.
        let suffix = format!(".{bare}");
        let mut found = self
            .types
            .iter()
            .enumerate()
            .filter(|(_, t)| t.construct == c && t.file.is_none() && t.name.ends_with(&suffix));
        match (found.next(), found.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }

    /// Whether `name` names a primitive data type.
    pub fn is_primitive(name: &str) -> bool {
        PRIMITIVES.contains(&name)
    }

    /// The parent of a type, if it names a declared type of the same construct.
    pub fn parent(&self, i: usize) -> Option<usize> {
        let t = &self.types[i];
        t.parent
            .as_deref()
            .and_then(|p| self.lookup(t.construct, p))
    }

    /// The type and its ancestors, nearest first; stops at a cycle.
    pub fn ancestors(&self, i: usize) -> Vec<usize> {
        let mut out = vec![i];
        let mut cur = i;
        while let Some(p) = self.parent(cur) {
            if out.contains(&p) {
                break;
            }
            out.push(p);
            cur = p;
        }
        out
    }

    /// Whether following `derived_from` from `i` comes back to `i`... or to
    /// any type already seen (a loop somewhere on the chain).
    pub fn in_cycle(&self, i: usize) -> bool {
        let mut seen = vec![i];
        let mut cur = i;
        while let Some(p) = self.parent(cur) {
            if p == i {
                return true;
            }
            if seen.contains(&p) {
                return false;
            }
            seen.push(p);
            cur = p;
        }
        false
    }

    /// Whether the chain of `i` is broken: it loops, or some `derived_from`
    /// on it names no declared type (a data type may derive from a
    /// primitive). Checks of templates of a broken type are skipped: the
    /// cause is reported once, at the type.
    pub fn chain_broken(&self, i: usize) -> bool {
        let mut seen = vec![i];
        let mut cur = i;
        loop {
            let t = &self.types[cur];
            let Some(name) = t.parent.as_deref() else {
                return false;
            };
            let Some(p) = self.parent(cur) else {
                return !(t.construct == Construct::Data && Self::is_primitive(name));
            };
            if seen.contains(&p) {
                return true;
            }
            seen.push(p);
            cur = p;
        }
    }

    /// Whether type `i` is `j` or derives from it.
    pub fn derives(&self, i: usize, j: usize) -> bool {
        self.ancestors(i).contains(&j)
    }

    /// Whether type named `sub` derives from the type named `sup` (same construct).
    pub fn derives_by_name(&self, c: Construct, sub: &str, sup: &str) -> bool {
        match (self.lookup(c, sub), self.lookup(c, sup)) {
            (Some(a), Some(b)) => self.derives(a, b),
            _ => false,
        }
    }

    /// A mapping section (`properties`, `attributes`, `capabilities`,
    /// `interfaces`, `artifacts`) merged along the hierarchy, root first, a
    /// subtype's entry replacing its parent's.
    pub fn merged(&self, i: usize, section: &'static str) -> Rc<IndexMap<String, Node>> {
        if let Some(m) = self.merged.borrow().get(&(i, section)) {
            return m.clone();
        }
        let mut out = IndexMap::new();
        for &t in self.ancestors(i).iter().rev() {
            if let Some(map) = self.types[t].def.get(section).and_then(Node::as_map) {
                for (k, v) in map.iter() {
                    if let Some(k) = k.scalar_text() {
                        out.insert(k, v.clone());
                    }
                }
            }
        }
        let out = Rc::new(out);
        self.merged.borrow_mut().insert((i, section), out.clone());
        out
    }

    /// Requirement definitions merged along the hierarchy by name.
    pub fn requirements(&self, i: usize) -> Rc<IndexMap<String, Node>> {
        if let Some(m) = self.merged.borrow().get(&(i, "requirements")) {
            return m.clone();
        }
        let mut out = IndexMap::new();
        for &t in self.ancestors(i).iter().rev() {
            if let Some(items) = self.types[t].def.get("requirements").and_then(Node::as_seq) {
                for item in items {
                    if let Some((k, v)) = item.as_map().and_then(|m| m.entries.first()) {
                        if let Some(k) = k.scalar_text() {
                            out.insert(k, v.clone());
                        }
                    }
                }
            }
        }
        let out = Rc::new(out);
        self.merged
            .borrow_mut()
            .insert((i, "requirements"), out.clone());
        out
    }

    /// Every type of a construct (for listings).
    pub fn of(&self, c: Construct) -> impl Iterator<Item = (usize, &TypeDef)> {
        self.types
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.construct == c)
    }
}
