//! Checks of type definitions: parents, cycles, references, property definitions.

use super::props::check_def;
use super::{entries, join, Cx};
use crate::catalog::{Catalog, Construct};
use crate::kind::ToscaKind;
use crate::values::Prim;
use std::collections::HashSet;
use vetro_diag::Diagnostic;
use vetro_yaml::Node;

/// The `node` of every requirement definition of each node type that a node
/// template of `topology` instantiates, and of its supertypes, must name a
/// declared node type: tosca-parser resolves those (all of them, assigned by
/// the template or not) and fails on an undeclared one, while it never looks
/// at types nobody instantiates. Problems come with the file declaring the
/// type (`None` never occurs: the bundled types are consistent).
pub fn instantiated_requirement_targets(
    cat: &Catalog,
    topology: &Node,
) -> Vec<(Option<usize>, Diagnostic)> {
    let mut used = Vec::new();
    let mut seen = HashSet::new();
    for (_, _, tpl) in entries(topology.get("node_templates")) {
        let found = tpl
            .get("type")
            .and_then(Node::as_str)
            .and_then(|t| cat.lookup(Construct::Node, t));
        let Some(found) = found else { continue };
        // The chain is followed up to a type seen before: the rest of it
        // was seen with that type.
        for t in cat.ancestors(found) {
            if !seen.insert(t) {
                break;
            }
            used.push(t);
        }
    }
    let mut out = Vec::new();
    for t in used {
        let t = cat.get(t);
        let reqs = t.def.get("requirements").and_then(Node::as_seq);
        for (i, item) in reqs.into_iter().flatten().enumerate() {
            for (name, _, req) in entries(Some(item)) {
                let Some(node) = req.get("node") else {
                    continue;
                };
                let Some(target) = node.as_str() else {
                    continue;
                };
                if cat.lookup(Construct::Node, target).is_some() {
                    continue;
                }
                let path = join(
                    &join(
                        &join(&join(t.section, &t.name), "requirements"),
                        &i.to_string(),
                    ),
                    &name,
                );
                let d = Diagnostic::error(
                    ToscaKind::UnknownType,
                    format!("{} '{target}' is not declared", Construct::Node.label()),
                )
                .with_span(node.span)
                .with_path(join(&path, "node"));
                out.push((t.file, d));
            }
        }
    }
    out
}

/// Check every type declared in file `file`.
pub fn check(cx: &mut Cx, file: usize) {
    let cat = cx.cat;
    for (i, t) in cat.types().iter().enumerate() {
        if t.file != Some(file) {
            continue;
        }
        let path = join(t.section, &t.name);
        check_type(cx, i, &path);
    }
}

fn check_ref(cx: &mut Cx, c: &[Construct], node: Option<&Node>, path: &str) {
    let Some(node) = node else { return };
    let Some(name) = node.as_str() else { return };
    if !c.iter().any(|&c| cx.cat.lookup(c, name).is_some()) {
        cx.err(
            ToscaKind::UnknownType,
            path,
            node.span,
            format!("{} '{name}' is not declared", c[0].label()),
        );
    }
}

fn check_ref_list(cx: &mut Cx, c: &[Construct], node: Option<&Node>, path: &str) {
    if let Some(items) = node.and_then(Node::as_seq) {
        for (i, item) in items.iter().enumerate() {
            check_ref(cx, c, Some(item), &join(path, &i.to_string()));
        }
    }
}

fn check_defs(cx: &mut Cx, section: Option<&Node>, path: &str) {
    for (name, _, def) in entries(section) {
        check_def(cx, def, &join(path, &name));
    }
}

fn check_type(cx: &mut Cx, i: usize, path: &str) {
    let cat: &Catalog = cx.cat;
    let t = cat.get(i);
    let def = &t.def;
    if let Some(parent) = def.get("derived_from") {
        let name = parent.as_str().unwrap_or_default();
        let primitive_base = t.construct == Construct::Data && Prim::parse(name).is_some();
        if cat.parent(i).is_none() && !primitive_base {
            cx.err(
                ToscaKind::UnknownType,
                &join(path, "derived_from"),
                parent.span,
                format!(
                    "'{}' derives from {} '{name}', which is not declared",
                    t.name,
                    t.construct.label()
                ),
            );
        } else if cat.in_cycle(i) {
            let chain: Vec<&str> = cat
                .ancestors(i)
                .iter()
                .map(|&a| cat.get(a).name.as_str())
                .collect();
            cx.err(
                ToscaKind::DerivationCycle,
                path,
                t.key_span,
                format!(
                    "the derivation of '{}' loops: {} -> {}",
                    t.name,
                    chain.join(" -> "),
                    t.name
                ),
            );
            return;
        }
    }
    check_defs(cx, def.get("properties"), &join(path, "properties"));
    check_redefinitions(cx, i, "properties", path);
    check_redefinitions(cx, i, "attributes", path);
    check_defs(cx, def.get("attributes"), &join(path, "attributes"));
    match t.construct {
        Construct::Node => {
            check_node_type(cx, def, path);
        }
        Construct::Capability => {
            check_ref_list(
                cx,
                &[Construct::Node, Construct::Capability],
                def.get("valid_source_types"),
                &join(path, "valid_source_types"),
            );
        }
        Construct::Relationship => {
            check_ref_list(
                cx,
                &[Construct::Capability, Construct::Node],
                def.get("valid_target_types"),
                &join(path, "valid_target_types"),
            );
            check_interfaces(cx, def.get("interfaces"), &join(path, "interfaces"));
        }
        Construct::Group => {
            check_ref_list(
                cx,
                &[Construct::Node, Construct::Group],
                def.get("targets"),
                &join(path, "targets"),
            );
            check_ref_list(
                cx,
                &[Construct::Node, Construct::Group],
                def.get("members"),
                &join(path, "members"),
            );
            check_interfaces(cx, def.get("interfaces"), &join(path, "interfaces"));
        }
        Construct::Policy => {
            check_ref_list(
                cx,
                &[Construct::Node, Construct::Group],
                def.get("targets"),
                &join(path, "targets"),
            );
        }
        Construct::Interface | Construct::Data | Construct::Artifact => {}
    }
}

fn check_interfaces(cx: &mut Cx, section: Option<&Node>, path: &str) {
    for (name, _, idef) in entries(section) {
        let ipath = join(path, &name);
        check_ref(
            cx,
            &[Construct::Interface],
            idef.get("type"),
            &join(&ipath, "type"),
        );
        check_defs(cx, idef.get("inputs"), &join(&ipath, "inputs"));
    }
}

fn check_node_type(cx: &mut Cx, def: &Node, path: &str) {
    for (name, _, cap) in entries(def.get("capabilities")) {
        let cpath = join(&join(path, "capabilities"), &name);
        check_ref(
            cx,
            &[Construct::Capability],
            cap.get("type"),
            &join(&cpath, "type"),
        );
        check_ref_list(
            cx,
            &[Construct::Node],
            cap.get("valid_source_types"),
            &join(&cpath, "valid_source_types"),
        );
        check_defs(cx, cap.get("properties"), &join(&cpath, "properties"));
        check_defs(cx, cap.get("attributes"), &join(&cpath, "attributes"));
    }
    if let Some(items) = def.get("requirements").and_then(Node::as_seq) {
        for (i, item) in items.iter().enumerate() {
            for (name, _, req) in entries(Some(item)) {
                let rpath = join(&join(&join(path, "requirements"), &i.to_string()), &name);
                check_ref(
                    cx,
                    &[Construct::Capability],
                    req.get("capability"),
                    &join(&rpath, "capability"),
                );
                // `node` is checked only where a template instantiates the
                // type (see `instantiated_requirement_targets`): unused types
                // routinely name node types of files they do not import.
                if let Some(rel) = req.get("relationship") {
                    let relpath = join(&rpath, "relationship");
                    check_ref(
                        cx,
                        &[Construct::Relationship],
                        rel.get("type"),
                        &join(&relpath, "type"),
                    );
                    check_interfaces(cx, rel.get("interfaces"), &join(&relpath, "interfaces"));
                }
            }
        }
    }
    check_interfaces(cx, def.get("interfaces"), &join(path, "interfaces"));
    for (name, _, art) in entries(def.get("artifacts")) {
        let apath = join(&join(path, "artifacts"), &name);
        check_ref(
            cx,
            &[Construct::Artifact],
            art.get("type"),
            &join(&apath, "type"),
        );
    }
}

/// Whether value type `sub` may replace `sup` in a redefinition: the same
/// type, or a data type derived from it.
fn type_refines(cat: &Catalog, sub: &str, sup: &str) -> bool {
    if sub == sup {
        return true;
    }
    match (
        cat.lookup(Construct::Data, sub),
        cat.lookup(Construct::Data, sup),
    ) {
        (Some(a), Some(b)) => cat.derives(a, b),
        (Some(a), None) => {
            // A data type derived from the primitive `sup` (`PortDef` from integer).
            let top = *cat.ancestors(a).last().unwrap_or(&a);
            cat.get(top).parent.as_deref() == Some(sup)
        }
        _ => false,
    }
}

/// A property or attribute redefined by a subtype keeps a type derived from
/// the one its supertype declares.
fn check_redefinitions(cx: &mut Cx, i: usize, section: &'static str, path: &str) {
    let cat = cx.cat;
    let Some(parent) = cat.parent(i) else { return };
    if cat.chain_broken(i) {
        return;
    }
    let inherited = cat.merged(parent, section);
    for (name, _, def) in entries(cat.get(i).def.get(section)) {
        let Some(old) = inherited.get(&name) else {
            continue;
        };
        let (Some(new_ty), Some(old_ty)) = (
            def.get("type").and_then(Node::as_str),
            old.get("type").and_then(Node::as_str),
        ) else {
            continue;
        };
        if !type_refines(cat, new_ty, old_ty) {
            let at = join(&join(&join(path, section), &name), "type");
            let span = def.get("type").map_or(def.span, |t| t.span);
            let msg = format!(
                "'{name}' is redefined with type '{new_ty}', which does not derive from the inherited type '{old_ty}'"
            );
            cx.err(ToscaKind::BadRedefinition, &at, span, msg);
        }
    }
}
