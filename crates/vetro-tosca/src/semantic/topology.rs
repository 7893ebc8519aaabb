//! Checks of the topology template against the catalog.

use super::props::{check_assignment, check_def, is_required};
use super::topo::{This, Topo};
use super::{entries, functions, join, Cx};
use crate::catalog::Construct;
use crate::kind::ToscaKind;
use std::collections::{HashMap, HashSet};
use vetro_kwalify::KwalifyKind;
use vetro_yaml::Node;

fn names(section: Option<&Node>) -> impl Iterator<Item = (&str, &Node)> {
    section
        .and_then(Node::as_map)
        .into_iter()
        .flat_map(|m| m.iter())
        .filter_map(|(k, v)| k.as_str().map(|k| (k, v)))
}

pub fn check(cx: &mut Cx, doc: &Node) {
    let Some(tt) = doc.get("topology_template") else {
        return;
    };
    let base = "topology_template";
    let cat = cx.cat;
    let mut topo = Topo {
        inputs: names(tt.get("inputs")).map(|(k, _)| k).collect(),
        ..Topo::default()
    };
    for (name, tpl) in names(tt.get("node_templates")) {
        let t = tpl
            .get("type")
            .and_then(Node::as_str)
            .and_then(|t| cat.lookup(Construct::Node, t));
        topo.nodes.insert(name, t);
    }
    for (name, tpl) in names(tt.get("relationship_templates")) {
        let t = tpl
            .get("type")
            .and_then(Node::as_str)
            .and_then(|t| cat.lookup(Construct::Relationship, t));
        topo.rels.insert(name, t);
    }
    topo.groups = names(tt.get("groups")).map(|(k, _)| k).collect();
    for (name, g) in names(tt.get("groups")) {
        let t = g
            .get("type")
            .and_then(Node::as_str)
            .and_then(|t| cat.lookup(Construct::Group, t));
        topo.group_types.insert(name, t);
    }

    let inputs_path = join(base, "inputs");
    for (name, _, def) in entries(tt.get("inputs")) {
        check_def(cx, def, &join(&inputs_path, &name));
    }
    let nt_path = join(base, "node_templates");
    for (name, tpl) in names(tt.get("node_templates")) {
        check_node_template(cx, &topo, tpl, &join(&nt_path, name));
    }
    let rt_path = join(base, "relationship_templates");
    for (name, tpl) in names(tt.get("relationship_templates")) {
        check_relationship_template(cx, &topo, tpl, &join(&rt_path, name));
    }
    let g_path = join(base, "groups");
    for (name, g) in names(tt.get("groups")) {
        check_group(cx, &topo, g, &join(&g_path, name));
    }
    if let Some(items) = tt.get("policies").and_then(Node::as_seq) {
        for (i, item) in items.iter().enumerate() {
            for (name, p) in names(Some(item)) {
                let p_path = join(&join(&join(base, "policies"), &i.to_string()), name);
                check_policy(cx, &topo, p, &p_path);
            }
        }
    }
    let o_path = join(base, "outputs");
    for (name, out) in names(tt.get("outputs")) {
        if let Some(v) = out.get("value") {
            functions::check(cx, &topo, None, v, &join(&join(&o_path, name), "value"));
        }
    }
    if let Some(sm) = tt.get("substitution_mappings") {
        check_substitution(cx, &topo, sm, &join(base, "substitution_mappings"));
    }
}

/// Look up a type of a template; report `unknown-type` at `path/type`.
fn template_type(cx: &mut Cx, c: Construct, tpl: &Node, path: &str) -> Option<usize> {
    let ty = tpl.get("type")?;
    let name = ty.as_str()?;
    match cx.cat.lookup(c, name) {
        Some(t) if !cx.cat.chain_broken(t) => Some(t),
        Some(_) => None, // a broken type was reported where it is declared
        None => {
            cx.err(
                ToscaKind::UnknownType,
                &join(path, "type"),
                ty.span,
                format!("{} '{name}' is not declared", c.label()),
            );
            None
        }
    }
}

/// Assigned properties against their definitions, and required ones.
/// The property definitions a template's `properties` are checked against.
struct PropDefs<'a> {
    defs: &'a indexmap::IndexMap<String, Node>,
    /// The declaring entity, for messages (`node type 'x'`).
    owner: &'a str,
    /// Whether required properties without default must be assigned.
    require: bool,
}

fn check_properties(
    cx: &mut Cx,
    topo: &Topo,
    self_type: Option<This>,
    target: &PropDefs,
    holder: &Node,
    path: &str,
) {
    // `holder` is the template (or capability assignment) owning `properties`.
    let values = holder.get("properties");
    let PropDefs {
        defs,
        owner,
        require,
    } = *target;
    let ppath = join(path, "properties");
    for (key, k, v) in entries(values) {
        let vpath = join(&ppath, &key);
        match defs.get(&key) {
            Some(def) => check_assignment(cx, def, v, &vpath),
            None => cx.err(
                ToscaKind::UndeclaredName,
                &vpath,
                k.span,
                format!("{owner} declares no property '{key}'"),
            ),
        }
        functions::check(cx, topo, self_type, v, &vpath);
    }
    if !require {
        return;
    }
    for (key, def) in defs.iter() {
        let assigned = values
            .and_then(|v| v.get(key))
            .is_some_and(|v| !v.is_null());
        if !assigned && is_required(def) && def.get("default").is_none() {
            let span = values.map_or(holder.span, |v| v.span);
            cx.err(
                KwalifyKind::MissingRequired,
                &join(&ppath, key),
                span,
                format!("required property '{key}' of {owner} is not assigned"),
            );
        }
    }
}

fn check_node_template(cx: &mut Cx, topo: &Topo, tpl: &Node, path: &str) {
    let cat = cx.cat;
    if let Some(copy) = tpl.get("copy") {
        if let Some(name) = copy.as_str() {
            if !topo.nodes.contains_key(name) {
                cx.err(
                    ToscaKind::UnresolvedReference,
                    &join(path, "copy"),
                    copy.span,
                    format!("'copy' names node template '{name}', which does not exist"),
                );
            }
        }
    }
    let Some(t) = template_type(cx, Construct::Node, tpl, path) else {
        return;
    };
    let this = Some(This { ty: t, tpl });
    let tname = cat.get(t).name.clone();
    let owner = format!("node type '{tname}'");
    let props = cat.merged(t, "properties");
    let require = tpl.get("copy").is_none();
    check_properties(
        cx,
        topo,
        this,
        &PropDefs {
            defs: &props,
            owner: &owner,
            require,
        },
        tpl,
        path,
    );

    let attrs = cat.merged(t, "attributes");
    let apath = join(path, "attributes");
    for (key, k, v) in entries(tpl.get("attributes")) {
        let vpath = join(&apath, &key);
        if !attrs.contains_key(&key) && !props.contains_key(&key) {
            cx.err(
                ToscaKind::UndeclaredName,
                &vpath,
                k.span,
                format!("{owner} declares no attribute '{key}'"),
            );
        }
        functions::check(cx, topo, this, v, &vpath);
    }

    let caps = cat.merged(t, "capabilities");
    let cpath = join(path, "capabilities");
    for (key, k, cap) in entries(tpl.get("capabilities")) {
        let vpath = join(&cpath, &key);
        let Some(cdef) = caps.get(&key) else {
            cx.err(
                ToscaKind::UndeclaredName,
                &vpath,
                k.span,
                format!("{owner} declares no capability '{key}'"),
            );
            continue;
        };
        let ctype = cdef
            .get("type")
            .and_then(Node::as_str)
            .and_then(|c| cat.lookup(Construct::Capability, c));
        let Some(ct) = ctype.filter(|&c| !cat.chain_broken(c)) else {
            continue;
        };
        let defs = topo.capability_properties(cx, t, &key, ct, cdef);
        let cowner = format!("capability '{key}' ({})", cat.get(ct).name);
        check_properties(
            cx,
            topo,
            this,
            &PropDefs {
                defs: &defs,
                owner: &cowner,
                require: false,
            },
            cap,
            &vpath,
        );
        if let Some(attrs) = cap.get("attributes") {
            functions::check(cx, topo, this, attrs, &join(&vpath, "attributes"));
        }
    }

    check_requirements(cx, topo, t, tpl, path);
    check_template_interfaces(cx, topo, t, tpl, path, &owner);

    for (key, _, art) in entries(tpl.get("artifacts")) {
        if let Some(ty) = art.get("type") {
            let name = ty.as_str().unwrap_or_default();
            if cat.lookup(Construct::Artifact, name).is_none() {
                cx.err(
                    ToscaKind::UnknownType,
                    &join(&join(&join(path, "artifacts"), &key), "type"),
                    ty.span,
                    format!("artifact type '{name}' is not declared"),
                );
            }
        }
    }
}

fn check_requirements(cx: &mut Cx, topo: &Topo, t: usize, tpl: &Node, path: &str) {
    let cat = cx.cat;
    let this = Some(This { ty: t, tpl });
    let items = tpl
        .get("requirements")
        .and_then(Node::as_seq)
        .unwrap_or(&[]);
    let defs = cat.requirements(t);
    let rpath = join(path, "requirements");
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        for (name, _, req) in entries(Some(item)) {
            // Requirement names are not checked against the type: tosca-parser
            // accepts any name given in the long form, and the corpus relies on it.
            let ipath = join(&join(&rpath, &i.to_string()), &name);
            *counts.entry(name.clone()).or_default() += 1;
            check_target(cx, topo, &name, req, &ipath);
            if let Some(rel) = req.get("relationship") {
                if let Some(ty) = rel.get("type") {
                    let n = ty.as_str().unwrap_or_default();
                    if !topo.rels.contains_key(n)
                        && cat.lookup(Construct::Relationship, n).is_none()
                    {
                        cx.err(ToscaKind::UnknownType, &join(&join(&ipath, "relationship"), "type"), ty.span, format!("relationship '{n}' is neither a relationship type nor a relationship template"));
                    }
                }
                if let Some(props) = rel.get("properties") {
                    functions::check(
                        cx,
                        topo,
                        this,
                        props,
                        &join(&join(&ipath, "relationship"), "properties"),
                    );
                }
            }
        }
    }
    if tpl.get("copy").is_some() {
        return;
    }
    for (name, def) in defs.iter() {
        let (lo, hi) = occurrences(def);
        let count = counts.get(name).copied().unwrap_or(0) as i64;
        if count < lo || hi.is_some_and(|hi| count > hi) {
            let bound = hi.map_or("UNBOUNDED".to_string(), |h| h.to_string());
            cx.err(ToscaKind::Occurrences, &rpath, tpl.span, format!("requirement '{name}' is assigned {count} time(s), the definition allows [{lo}, {bound}]"));
        }
    }
}

/// A requirement's target: `node` names a node template or a node type;
/// `capability` names a capability of the target template or a capability
/// type. Type compatibility with the definition is not enforced: tosca-parser
/// does not check it and the corpus templates (a WebApplication hosted on a
/// Compute, say) rely on that.
fn check_target(cx: &mut Cx, topo: &Topo, name: &str, req: &Node, path: &str) {
    let cat = cx.cat;
    let mut target_type = None;
    if let Some(node) = req.get("node") {
        let Some(n) = node.as_str() else { return };
        match topo.nodes.get(n) {
            Some(Some(t)) => target_type = Some(*t),
            Some(None) => return, // its unknown type is reported on the template
            None if cat.lookup(Construct::Node, n).is_some() => {}
            None => {
                let msg = format!("requirement '{name}' names node '{n}', which is neither a node template nor a node type");
                cx.err(
                    ToscaKind::UnresolvedReference,
                    &join(path, "node"),
                    node.span,
                    msg,
                );
                return;
            }
        }
    }
    let Some(cap) = req.get("capability") else {
        return;
    };
    let Some(c) = cap.as_str() else { return };
    let named = target_type.is_some_and(|t| cat.merged(t, "capabilities").contains_key(c));
    if !named && cat.lookup(Construct::Capability, c).is_none() {
        let msg = format!("requirement '{name}' names capability '{c}', which is neither a capability of the target nor a capability type");
        cx.err(
            ToscaKind::UnresolvedReference,
            &join(path, "capability"),
            cap.span,
            msg,
        );
    }
}

/// The `occurrences` of a requirement definition; TOSCA's default is [1, 1].
fn occurrences(def: &Node) -> (i64, Option<i64>) {
    match def.get("occurrences").and_then(Node::as_seq) {
        Some([lo, hi]) => (lo.as_i64().unwrap_or(0), hi.as_i64()),
        _ => (1, Some(1)),
    }
}

/// Operation names an interface type declares, along its hierarchy.
fn interface_ops(cx: &Cx, itype: usize) -> HashSet<String> {
    let cat = cx.cat;
    let mut ops = HashSet::new();
    for &a in &cat.ancestors(itype) {
        for (name, _, _) in entries(Some(&cat.get(a).def)) {
            if !matches!(
                name.as_str(),
                "derived_from" | "description" | "version" | "metadata" | "inputs"
            ) {
                ops.insert(name);
            }
        }
    }
    ops
}

/// What a node type's hierarchy says about one interface: whether it is
/// declared, and the operations it allows.
fn declared_interface(cx: &Cx, t: usize, name: &str) -> Option<HashSet<String>> {
    let cat = cx.cat;
    let mut declared = false;
    let mut ops = HashSet::new();
    for &a in cat.ancestors(t).iter().rev() {
        let Some(idef) = cat.get(a).def.get("interfaces").and_then(|i| i.get(name)) else {
            continue;
        };
        declared = true;
        ops.extend(
            entries(Some(idef))
                .map(|(n, _, _)| n)
                .filter(|n| n != "type" && n != "inputs"),
        );
        if let Some(ty) = idef.get("type").and_then(Node::as_str) {
            match cat.lookup(Construct::Interface, ty) {
                Some(it) => ops.extend(interface_ops(cx, it)),
                None => return None, // unknown interface type: reported at its definition
            }
        }
    }
    declared.then_some(ops)
}

fn check_template_interfaces(
    cx: &mut Cx,
    topo: &Topo,
    t: usize,
    tpl: &Node,
    path: &str,
    owner: &str,
) {
    let this = Some(This { ty: t, tpl });
    let ipath = join(path, "interfaces");
    for (name, k, iface) in entries(tpl.get("interfaces")) {
        let vpath = join(&ipath, &name);
        let declared = cx.cat.merged(t, "interfaces").contains_key(&name);
        if !declared {
            cx.err(
                ToscaKind::UndeclaredName,
                &vpath,
                k.span,
                format!("{owner} declares no interface '{name}'"),
            );
            continue;
        }
        let Some(ops) = declared_interface(cx, t, &name) else {
            continue;
        };
        for (op, ok, odef) in entries(Some(iface)) {
            let opath = join(&vpath, &op);
            if op != "inputs" && !ops.contains(&op) {
                cx.err(
                    ToscaKind::UndeclaredName,
                    &opath,
                    ok.span,
                    format!("interface '{name}' of {owner} declares no operation '{op}'"),
                );
            }
            functions::check(cx, topo, this, odef, &opath);
        }
    }
}

fn check_relationship_template(cx: &mut Cx, topo: &Topo, tpl: &Node, path: &str) {
    let cat = cx.cat;
    let Some(t) = template_type(cx, Construct::Relationship, tpl, path) else {
        return;
    };
    let owner = format!("relationship type '{}'", cat.get(t).name);
    let props = cat.merged(t, "properties");
    check_properties(
        cx,
        topo,
        None,
        &PropDefs {
            defs: &props,
            owner: &owner,
            require: false,
        },
        tpl,
        path,
    );
}

fn check_members(
    cx: &mut Cx,
    topo: &Topo,
    list: Option<&Node>,
    path: &str,
    groups_too: bool,
    what: &str,
) {
    let Some(items) = list.and_then(Node::as_seq) else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let Some(n) = item.as_str() else { continue };
        if !(topo.nodes.contains_key(n) || groups_too && topo.groups.contains(n)) {
            cx.err(
                ToscaKind::UnresolvedReference,
                &join(path, &i.to_string()),
                item.span,
                format!("{what} '{n}' does not exist in the topology"),
            );
        }
    }
}

/// What differs between checking a group and checking a policy.
struct Grouping {
    construct: Construct,
    /// The key listing the grouped templates (`members` / `targets`).
    list_key: &'static str,
    /// Whether groups may be listed beside node templates (policy targets).
    groups_too: bool,
    what: &'static str,
    /// Keys of the type that restrict the listed templates' types.
    type_keys: &'static [&'static str],
    type_word: &'static str,
}

const GROUP: Grouping = Grouping {
    construct: Construct::Group,
    list_key: "members",
    groups_too: false,
    what: "group member",
    type_keys: &["members", "targets"],
    type_word: "group type",
};

const POLICY: Grouping = Grouping {
    construct: Construct::Policy,
    list_key: "targets",
    groups_too: true,
    what: "policy target",
    type_keys: &["targets"],
    type_word: "policy type",
};

fn check_group(cx: &mut Cx, topo: &Topo, g: &Node, path: &str) {
    check_grouping(cx, topo, g, path, &GROUP);
}

fn check_policy(cx: &mut Cx, topo: &Topo, p: &Node, path: &str) {
    check_grouping(cx, topo, p, path, &POLICY);
}

fn check_grouping(cx: &mut Cx, topo: &Topo, node: &Node, path: &str, kind: &Grouping) {
    let cat = cx.cat;
    let list = node.get(kind.list_key);
    let list_path = join(path, kind.list_key);
    check_members(cx, topo, list, &list_path, kind.groups_too, kind.what);
    let Some(t) = template_type(cx, kind.construct, node, path) else {
        return;
    };
    check_compatible(cx, topo, t, kind.type_keys, list, &list_path);
    let owner = format!("{} '{}'", kind.type_word, cat.get(t).name);
    let props = cat.merged(t, "properties");
    check_properties(
        cx,
        topo,
        None,
        &PropDefs {
            defs: &props,
            owner: &owner,
            require: false,
        },
        node,
        path,
    );
}

/// Members/targets must be of a type the group/policy type allows (its
/// `members`/`targets` list, along the hierarchy; no list: anything).
fn check_compatible(
    cx: &mut Cx,
    topo: &Topo,
    t: usize,
    keys: &[&str],
    list: Option<&Node>,
    path: &str,
) {
    let cat = cx.cat;
    let Some(items) = list.and_then(Node::as_seq) else {
        return;
    };
    let allowed: Vec<&Node> = cat
        .ancestors(t)
        .iter()
        .find_map(|&a| {
            keys.iter()
                .find_map(|k| cat.get(a).def.get(k))
                .and_then(Node::as_seq)
        })
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    if allowed.is_empty() {
        return;
    }
    let fits = |member: usize, c: Construct| {
        allowed
            .iter()
            .filter_map(|n| n.as_str())
            .any(|n| cat.lookup(c, n).is_some_and(|a| cat.derives(member, a)))
    };
    for (i, item) in items.iter().enumerate() {
        let Some(n) = item.as_str() else { continue };
        let ok = match topo.nodes.get(n) {
            Some(Some(m)) => cat.chain_broken(*m) || fits(*m, Construct::Node),
            Some(None) => true,
            None => match topo.group_types.get(n) {
                Some(Some(g)) => fits(*g, Construct::Group),
                _ => true, // unknown names are reported by check_members
            },
        };
        if !ok {
            let msg = format!(
                "'{n}' is not of a type that {} '{}' accepts",
                cat.get(t).construct.label(),
                cat.get(t).name
            );
            cx.err(
                ToscaKind::UnresolvedReference,
                &join(path, &i.to_string()),
                item.span,
                msg,
            );
        }
    }
}

fn check_substitution(cx: &mut Cx, topo: &Topo, sm: &Node, path: &str) {
    let cat = cx.cat;
    if let Some(nt) = sm.get("node_type") {
        let n = nt.as_str().unwrap_or_default();
        if cat.lookup(Construct::Node, n).is_none() {
            cx.err(
                ToscaKind::UnknownType,
                &join(path, "node_type"),
                nt.span,
                format!("node type '{n}' is not declared"),
            );
        }
    }
    for section in ["capabilities", "requirements"] {
        for (name, _, m) in entries(sm.get(section)) {
            let mpath = join(&join(path, section), &name);
            match m.as_seq() {
                Some([tpl, inner]) => {
                    let Some(tn) = tpl.as_str() else { continue };
                    match topo.nodes.get(tn) {
                        None => cx.err(
                            ToscaKind::UnresolvedReference,
                            &join(&mpath, "0"),
                            tpl.span,
                            format!("node template '{tn}' does not exist"),
                        ),
                        Some(Some(t)) if !cat.chain_broken(*t) => {
                            let Some(iname) = inner.as_str() else {
                                continue;
                            };
                            let found = if section == "capabilities" {
                                cat.merged(*t, "capabilities").contains_key(iname)
                            } else {
                                cat.requirements(*t).contains_key(iname)
                            };
                            if !found {
                                let what = &section[..section.len() - 1];
                                let msg = format!(
                                    "node template '{tn}' (type '{}') has no {what} '{iname}'",
                                    cat.get(*t).name
                                );
                                cx.err(
                                    ToscaKind::UnresolvedReference,
                                    &join(&mpath, "1"),
                                    inner.span,
                                    msg,
                                );
                            }
                        }
                        Some(_) => {}
                    }
                }
                _ => cx.err(
                    ToscaKind::BadValue,
                    &mpath,
                    m.span,
                    format!("a {section} mapping is [node_template, name]"),
                ),
            }
        }
    }
}
