//! TOSCA function calls: argument shapes and the names they refer to.

use super::topo::{This, Topo};
use super::{join, Cx};
use crate::catalog::Construct;
use crate::kind::ToscaKind;
use crate::values::{function_name, show, Prim};
use vetro_yaml::{Node, NodeKind};

/// Check every function call inside `value`.
pub fn check(cx: &mut Cx, topo: &Topo, this: Option<This>, value: &Node, path: &str) {
    if let Some(f) = function_name(value) {
        let args = &value.as_map().map(|m| &m.entries[0].1);
        if let Some(args) = args {
            // Arguments are not searched for nested calls: tosca-parser
            // evaluates those lazily and accepts what it cannot resolve.
            check_call(cx, topo, this, f, args, value, path);
        }
        return;
    }
    match &value.kind {
        NodeKind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                check(cx, topo, this, item, &join(path, &i.to_string()));
            }
        }
        NodeKind::Map(m) => {
            for (k, v) in m.iter() {
                let seg = k.scalar_text().unwrap_or_default();
                check(cx, topo, this, v, &join(path, &seg));
            }
        }
        _ => {}
    }
}

fn bad(cx: &mut Cx, path: &str, call: &Node, message: String) {
    cx.err(ToscaKind::BadFunction, path, call.span, message);
}

fn check_call(
    cx: &mut Cx,
    topo: &Topo,
    this: Option<This>,
    f: &str,
    args: &Node,
    call: &Node,
    path: &str,
) {
    let list = args.as_seq();
    match f {
        "get_input" => {
            let name = match (&args.kind, list) {
                (NodeKind::Str(s), _) => Some(s.as_str()),
                (_, Some([first])) => first.as_str(),
                _ => None,
            };
            match name {
                None => bad(
                    cx,
                    path,
                    call,
                    format!("get_input takes an input name, not {}", show(args)),
                ),
                Some(n) if !topo.inputs.contains(n) => cx.err(
                    ToscaKind::UnresolvedReference,
                    path,
                    call.span,
                    format!("get_input refers to input '{n}', which is not declared"),
                ),
                Some(_) => {}
            }
        }
        "get_property" | "get_attribute" => match list {
            Some(items) if items.len() >= 2 => {
                check_entity_ref(cx, topo, this, f, items, call, path)
            }
            _ => bad(
                cx,
                path,
                call,
                format!("{f} takes a list [entity, name, ...], not {}", show(args)),
            ),
        },
        "concat" | "join" if list.is_none_or(<[Node]>::is_empty) => {
            bad(
                cx,
                path,
                call,
                format!("{f} takes a non-empty list, not {}", show(args)),
            );
        }
        "token" => {
            let ok = matches!(list, Some([_, sep, idx])
                if sep.as_str().is_some() && matches!(idx.kind, NodeKind::Int(_)));
            if !ok {
                bad(
                    cx,
                    path,
                    call,
                    "token takes [string, separator, index]".into(),
                );
            }
        }
        "get_operation_output" if !matches!(list, Some(items) if items.len() == 4) => {
            bad(
                cx,
                path,
                call,
                "get_operation_output takes [entity, interface, operation, output]".into(),
            );
        }
        "get_artifact" if !matches!(list, Some(items) if items.len() >= 2) => {
            bad(
                cx,
                path,
                call,
                "get_artifact takes [entity, artifact, ...]".into(),
            );
        }
        _ => {}
    }
}

fn check_entity_ref(
    cx: &mut Cx,
    topo: &Topo,
    this: Option<This>,
    f: &str,
    items: &[Node],
    call: &Node,
    path: &str,
) {
    let Some(entity) = items[0].as_str() else {
        bad(
            cx,
            path,
            call,
            format!("the first argument of {f} names an entity"),
        );
        return;
    };
    let target_type = match entity {
        "SELF" => this.map(|t| t.ty),
        "HOST" => {
            if let Some(this) = this {
                if !hosted(cx, topo, this) {
                    let msg = format!("{f}: HOST is used in a template that has no requirement with a tosca.relationships.HostedOn relationship");
                    cx.err(ToscaKind::UnresolvedReference, path, call.span, msg);
                }
            }
            None
        }
        "SOURCE" | "TARGET" => None,
        name => match topo.nodes.get(name) {
            Some(t) => *t,
            None if topo.rels.contains_key(name) => None,
            None => {
                let msg = format!("{f} refers to template '{name}', which does not exist");
                cx.err(ToscaKind::UnresolvedReference, path, call.span, msg);
                return;
            }
        },
    };
    let Some(t) = target_type else { return };
    let Some(name) = items[1].as_str() else {
        return;
    };
    let cat = cx.cat;
    if cat.chain_broken(t) {
        return;
    }
    let attribute = (f == "get_attribute")
        .then(|| cat.merged(t, "attributes").get(name).cloned())
        .flatten();
    let def = attribute.or_else(|| cat.merged(t, "properties").get(name).cloned());
    if let Some(def) = def {
        check_path_args(cx, f, &def, &items[2..], call, path);
        return;
    }
    let known =
        cat.merged(t, "capabilities").contains_key(name) || cat.requirements(t).contains_key(name);
    if !known {
        let what = if f == "get_property" {
            "property"
        } else {
            "attribute"
        };
        let msg = format!(
            "{f}: '{entity}' (type '{}') has no {what} '{name}'",
            cat.get(t).name
        );
        cx.err(ToscaKind::UnresolvedReference, path, call.span, msg);
    }
}

/// Whether a template has a requirement whose relationship is (derived from)
/// `tosca.relationships.HostedOn`, as `HOST` needs.
fn hosted(cx: &Cx, topo: &Topo, this: This) -> bool {
    let cat = cx.cat;
    let defs = cat.requirements(this.ty);
    let items = this
        .tpl
        .get("requirements")
        .and_then(Node::as_seq)
        .unwrap_or(&[]);
    items
        .iter()
        .flat_map(|item| super::entries(Some(item)))
        .any(|(name, _, req)| {
            let assigned = req
                .get("relationship")
                .and_then(|r| r.get("type"))
                .and_then(Node::as_str);
            let declared = defs
                .get(&name)
                .and_then(|d| d.get("relationship"))
                .and_then(|r| r.get("type").or(Some(r)))
                .and_then(Node::as_str);
            let Some(rel) = assigned.or(declared) else {
                return false;
            };
            let rel_type = match topo.rels.get(rel) {
                Some(Some(t)) => Some(*t),
                Some(None) => None,
                None => cat.lookup(Construct::Relationship, rel),
            };
            let hosted_on = cat.lookup(Construct::Relationship, "tosca.relationships.HostedOn");
            matches!((rel_type, hosted_on), (Some(r), Some(h)) if cat.derives(r, h))
        })
}

/// Nested keys / list indices after a property or attribute name must fit
/// its type: an index into a list, a key of a map, a field of a data type.
fn check_path_args(cx: &mut Cx, f: &str, def: &Node, rest: &[Node], call: &Node, path: &str) {
    let cat = cx.cat;
    let mut ty = def.get("type").and_then(Node::as_str).map(str::to_string);
    let mut schema = def.get("entry_schema").cloned();
    for arg in rest {
        let Some(name) = ty.clone() else { return };
        let next: Option<Node> = match (Prim::parse(&name), &arg.kind) {
            (Some(Prim::List), NodeKind::Int(_)) => schema.clone(),
            (Some(Prim::Map), _) if arg.is_scalar() && !arg.is_null() => schema.clone(),
            (Some(Prim::List | Prim::Map), _) => None,
            (Some(_), _) => None,
            (None, NodeKind::Str(field)) => match cat.lookup(Construct::Data, &name) {
                Some(d) => cat.merged(d, "properties").get(field).cloned(),
                None => return,
            },
            (None, _) => None,
        };
        let Some(next) = next else {
            let v = arg.scalar_text().unwrap_or_default();
            bad(
                cx,
                path,
                call,
                format!("{f}: unexpected attribute/index value '{v}' for a value of type '{name}'"),
            );
            return;
        };
        ty = next.get("type").and_then(Node::as_str).map(str::to_string);
        schema = next.get("entry_schema").cloned();
    }
}
