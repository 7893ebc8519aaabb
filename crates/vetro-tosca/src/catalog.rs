//! The type catalog: every declared type by construct, with inheritance.

use ahash::AHashMap;
use indexmap::IndexMap;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use vetro_diag::{FileId, Span};
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
    types: Vec<TypeDef>,
    /// Type indices by name, one map per construct (`Construct as usize`).
    index: [AHashMap<String, usize>; 8],
    /// Namespace prefixes declared by imports (`namespace_prefix`).
    prefixes: Vec<String>,
    /// Every type's parent and chain, computed once the catalog is queried.
    lineage: OnceCell<Lineage>,
    merged: RefCell<HashMap<(usize, &'static str), Merged>>,
}

/// Where each type stands in the derivation forest. A chain of thousands of
/// types is followed once here, not once per question about a type.
#[derive(Debug)]
struct Lineage {
    parent: Vec<Option<usize>>,
    /// How many types [`Catalog::ancestors`] lists: the type and each
    /// ancestor once (a chain ending in a loop lists the loop once).
    len: Vec<usize>,
    /// Whether following `derived_from` from the type comes back to it.
    on_cycle: Vec<bool>,
    /// Whether the chain loops or names an undeclared parent.
    broken: Vec<bool>,
}

impl Catalog {
    /// Add a type; on a duplicate name the index of the first declaration.
    pub fn add(&mut self, def: TypeDef) -> Result<usize, usize> {
        if let Some(existing) = self.find(def.construct, &def.name) {
            return Err(existing);
        }
        let i = self.types.len();
        self.index[def.construct as usize].insert(def.name.clone(), i);
        self.types.push(def);
        self.changed();
        Ok(i)
    }

    /// Replace the definition of type `i` (of the same construct and name).
    pub fn replace(&mut self, i: usize, def: TypeDef) {
        self.types[i] = def;
        self.changed();
    }

    /// Point the spans of every type added so far at `file` (the types
    /// were read from a text registered there again).
    pub fn move_to_file(&mut self, file: FileId) {
        for t in &mut self.types {
            t.def.move_to_file(file);
            t.key_span.file = file;
        }
    }

    /// Declare a namespace prefix (`namespace_prefix` of an import).
    pub fn add_prefix(&mut self, prefix: &str) {
        self.prefixes.push(prefix.to_string());
        self.changed();
    }

    /// Every declared type, by index.
    pub fn types(&self) -> &[TypeDef] {
        &self.types
    }

    /// Forgets what was computed from the types.
    fn changed(&mut self) {
        self.lineage = OnceCell::new();
        self.merged.get_mut().clear();
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
                if self.find(c, &t.name).is_some() {
                    continue;
                }
                let name = t.name.clone();
                self.index[t.construct as usize].remove(&name);
                self.index[c as usize].insert(name, i);
                self.types[i].construct = c;
                moved = true;
            }
            if !moved {
                break;
            }
        }
        self.changed();
    }

    pub fn get(&self, i: usize) -> &TypeDef {
        &self.types[i]
    }

    /// The type declared as `c` under exactly `name`.
    pub fn find(&self, c: Construct, name: &str) -> Option<usize> {
        self.index[c as usize].get(name).copied()
    }

    /// Find a type by name, also by short name (`Compute`, `tosca:Compute`)
    /// and with a declared namespace prefix (`ns:Type`).
    pub fn lookup(&self, c: Construct, name: &str) -> Option<usize> {
        if let Some(i) = self.find(c, name) {
            return Some(i);
        }
        let bare = match name.split_once(':') {
            Some((prefix, rest))
                if prefix == "tosca" || self.prefixes.iter().any(|p| p == prefix) =>
            {
                if let Some(i) = self.find(c, rest) {
                    return Some(i);
                }
                rest
            }
            _ => name,
        };
        let long = format!("{}{bare}", c.normative_prefix());
        if let Some(i) = self.find(c, &long) {
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
        self.lineage().parent[i]
    }

    fn lookup_parent(&self, i: usize) -> Option<usize> {
        let t = &self.types[i];
        t.parent
            .as_deref()
            .and_then(|p| self.lookup(t.construct, p))
    }

    fn lineage(&self) -> &Lineage {
        self.lineage.get_or_init(|| self.compute_lineage())
    }

    /// Follows every chain once: each path is walked up to a type already
    /// placed, a root, or a loop, then placed from its top down.
    fn compute_lineage(&self) -> Lineage {
        let n = self.types.len();
        let parent: Vec<Option<usize>> = (0..n).map(|i| self.lookup_parent(i)).collect();
        let mut l = Lineage {
            parent,
            len: vec![0; n],
            on_cycle: vec![false; n],
            broken: vec![false; n],
        };
        // Position on the path being walked, for types on it.
        let mut on_path: Vec<Option<usize>> = vec![None; n];
        let mut placed = vec![false; n];
        for start in 0..n {
            let mut path = Vec::new();
            let mut cur = Some(start);
            // The type the path ends at, placed already, if any.
            let mut top: Option<usize> = None;
            while let Some(t) = cur {
                if placed[t] {
                    top = Some(t);
                    break;
                }
                if let Some(at) = on_path[t] {
                    // A loop: the types from `t` on lead back to `t`.
                    let cycle = path.split_off(at);
                    for &c in &cycle {
                        on_path[c] = None;
                        l.len[c] = cycle.len();
                        l.on_cycle[c] = true;
                        l.broken[c] = true;
                        placed[c] = true;
                    }
                    top = Some(t);
                    break;
                }
                on_path[t] = Some(path.len());
                path.push(t);
                cur = l.parent[t];
            }
            for &t in path.iter().rev() {
                match (top, l.parent[t]) {
                    (Some(p), Some(_)) => {
                        l.len[t] = l.len[p] + 1;
                        l.broken[t] = l.broken[p];
                    }
                    _ => {
                        // A root: broken when it names an undeclared parent
                        // (a data type may derive from a primitive).
                        let d = &self.types[t];
                        l.len[t] = 1;
                        l.broken[t] = d.parent.as_deref().is_some_and(|name| {
                            !(d.construct == Construct::Data && Self::is_primitive(name))
                        });
                    }
                }
                placed[t] = true;
                top = Some(t);
            }
            for &t in &path {
                on_path[t] = None;
            }
        }
        l
    }

    /// The type and its ancestors, nearest first; stops at a cycle.
    pub fn ancestors(&self, i: usize) -> Vec<usize> {
        self.chain(i).collect()
    }

    /// The type and its ancestors, nearest first, each once.
    fn chain(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let l = self.lineage();
        let mut cur = Some(i);
        (0..l.len[i]).map_while(move |_| {
            let t = cur?;
            cur = l.parent[t];
            Some(t)
        })
    }

    /// Whether following `derived_from` from `i` comes back to `i` (a type
    /// that merely derives from a loop is not in it).
    pub fn in_cycle(&self, i: usize) -> bool {
        self.lineage().on_cycle[i]
    }

    /// Whether the chain of `i` is broken: it loops, or some `derived_from`
    /// on it names no declared type (a data type may derive from a
    /// primitive). Checks of templates of a broken type are skipped: the
    /// cause is reported once, at the type.
    pub fn chain_broken(&self, i: usize) -> bool {
        self.lineage().broken[i]
    }

    /// Whether type `i` is `j` or derives from it.
    pub fn derives(&self, i: usize, j: usize) -> bool {
        self.chain(i).any(|t| t == j)
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
    pub fn merged(&self, i: usize, section: &'static str) -> Merged {
        self.merged_along(i, section)
    }

    /// Requirement definitions merged along the hierarchy by name.
    pub fn requirements(&self, i: usize) -> Merged {
        self.merged_along(i, "requirements")
    }

    /// The entries type `t` itself declares in `section` (`requirements` is
    /// a list of one-entry mappings, the other sections are mappings).
    fn own_entries(&self, t: usize, section: &str) -> Vec<(String, Node)> {
        let def = &self.types[t].def;
        let mut out = Vec::new();
        if section == "requirements" {
            for item in def
                .get(section)
                .and_then(Node::as_seq)
                .into_iter()
                .flatten()
            {
                if let Some((k, v)) = item.as_map().and_then(|m| m.entries.first()) {
                    if let Some(k) = k.scalar_text() {
                        out.push((k, v.clone()));
                    }
                }
            }
        } else if let Some(map) = def.get(section).and_then(Node::as_map) {
            for (k, v) in map.iter() {
                if let Some(k) = k.scalar_text() {
                    out.push((k, v.clone()));
                }
            }
        }
        out
    }

    /// `section` merged along the chain of `i`. Outside a loop, a type's
    /// merge is its parent's plus its own entries, so each type is merged
    /// once, from the nearest ancestor merged before; a type without entries
    /// of its own shares its parent's merge.
    fn merged_along(&self, i: usize, section: &'static str) -> Merged {
        if let Some(m) = self.merged.borrow().get(&(i, section)) {
            return m.clone();
        }
        let l = self.lineage();
        let mut pending = Vec::new();
        let mut base: Merged = Rc::default();
        let mut cur = Some(i);
        while let Some(t) = cur {
            if let Some(m) = self.merged.borrow().get(&(t, section)) {
                base = m.clone();
                break;
            }
            if l.on_cycle[t] {
                // Each type of a loop merges the whole loop, starting at itself.
                let mut out = IndexMap::new();
                let chain: Vec<usize> = self.chain(t).collect();
                for &a in chain.iter().rev() {
                    out.extend(self.own_entries(a, section));
                }
                base = Rc::new(out);
                self.merged.borrow_mut().insert((t, section), base.clone());
                break;
            }
            pending.push(t);
            cur = l.parent[t];
        }
        for &t in pending.iter().rev() {
            let own = self.own_entries(t, section);
            if !own.is_empty() {
                let mut out = (*base).clone();
                out.extend(own);
                base = Rc::new(out);
            }
            self.merged.borrow_mut().insert((t, section), base.clone());
        }
        base
    }

    /// Every type of a construct (for listings).
    pub fn of(&self, c: Construct) -> impl Iterator<Item = (usize, &TypeDef)> {
        self.types
            .iter()
            .enumerate()
            .filter(move |(_, t)| t.construct == c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vetro_yaml::{Mapping, NodeKind};

    fn str_node(s: &str) -> Node {
        Node::new(NodeKind::Str(s.to_string()), Span::default())
    }

    /// A type whose definition has one property named after it.
    fn type_def(name: &str, construct: Construct, parent: Option<String>) -> TypeDef {
        let mut props = Mapping::new();
        props.entries.push((str_node(name), str_node("p")));
        props.entries.push((str_node("shared"), str_node(name)));
        let mut def = Mapping::new();
        def.entries.push((
            str_node("properties"),
            Node::new(NodeKind::Map(props), Span::default()),
        ));
        TypeDef {
            name: name.to_string(),
            construct,
            def: Node::new(NodeKind::Map(def), Span::default()),
            file: Some(0),
            key_span: Span::default(),
            parent,
            section: construct.section(),
        }
    }

    /// The chain by definition: follow parents until one repeats.
    fn walk(cat: &Catalog, i: usize) -> (Vec<usize>, bool, bool) {
        let mut out = vec![i];
        let mut cur = i;
        loop {
            let t = cat.get(cur);
            let Some(p) = cat.lookup_parent(cur) else {
                let broken = t
                    .parent
                    .as_deref()
                    .is_some_and(|n| !(t.construct == Construct::Data && Catalog::is_primitive(n)));
                return (out, false, broken);
            };
            if out.contains(&p) {
                return (out, p == i, true);
            }
            out.push(p);
            cur = p;
        }
    }

    #[test]
    fn lineage_agrees_with_following_the_parents() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..200 {
            let n = 1 + next(12);
            let mut cat = Catalog::default();
            for i in 0..n {
                let construct = [Construct::Node, Construct::Data][next(2) as usize];
                let parent = match next(5) {
                    0 => None,
                    1 => Some("integer".to_string()),
                    2 => Some("undeclared".to_string()),
                    _ => Some(format!("t{}", next(n))),
                };
                cat.add(type_def(&format!("t{i}"), construct, parent))
                    .unwrap();
            }
            for i in 0..n as usize {
                let (chain, on_cycle, broken) = walk(&cat, i);
                assert_eq!(cat.ancestors(i), chain);
                assert_eq!(cat.in_cycle(i), on_cycle);
                assert_eq!(cat.chain_broken(i), broken);
                for j in 0..n as usize {
                    assert_eq!(cat.derives(i, j), chain.contains(&j));
                }
                let mut merged = IndexMap::new();
                for &t in chain.iter().rev() {
                    merged.extend(cat.own_entries(t, "properties"));
                }
                assert_eq!(*cat.merged(i, "properties"), merged);
            }
        }
    }
}
