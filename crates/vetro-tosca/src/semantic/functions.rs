//! TOSCA function calls: argument shapes and the names they refer to.

use super::topology::Topo;
use super::{join, Cx};
use crate::values::{function_name, show};
use vetro_yaml::{Node, NodeKind};

/// Check every function call inside `value` (nested ones too).
pub fn check(cx: &mut Cx, topo: &Topo, self_type: Option<usize>, value: &Node, path: &str) {
    if let Some(f) = function_name(value) {
        let args = &value.as_map().map(|m| &m.entries[0].1);
        if let Some(args) = args {
            // Arguments are not searched for nested calls: tosca-parser
            // evaluates those lazily and accepts what it cannot resolve.
            check_call(cx, topo, self_type, f, args, value, path);
        }
        return;
    }
    match &value.kind {
        NodeKind::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                check(cx, topo, self_type, item, &join(path, &i.to_string()));
            }
        }
        NodeKind::Map(m) => {
            for (k, v) in m.iter() {
                let seg = k.scalar_text().unwrap_or_default();
                check(cx, topo, self_type, v, &join(path, &seg));
            }
        }
        _ => {}
    }
}

fn bad(cx: &mut Cx, path: &str, call: &Node, message: String) {
    cx.err("bad-function", path, call.span, message);
}

fn check_call(
    cx: &mut Cx,
    topo: &Topo,
    self_type: Option<usize>,
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
                    "unresolved-reference",
                    path,
                    call.span,
                    format!("get_input refers to input '{n}', which is not declared"),
                ),
                Some(_) => {}
            }
        }
        "get_property" | "get_attribute" => match list {
            Some(items) if items.len() >= 2 => {
                check_entity_ref(cx, topo, self_type, f, items, call, path)
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
    self_type: Option<usize>,
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
        "SELF" => self_type,
        "SOURCE" | "TARGET" | "HOST" => None,
        name => match topo.nodes.get(name) {
            Some(t) => *t,
            None if topo.rels.contains_key(name) => None,
            None => {
                cx.err(
                    "unresolved-reference",
                    path,
                    call.span,
                    format!("{f} refers to template '{name}', which does not exist"),
                );
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
    let known = cat.merged(t, "properties").contains_key(name)
        || (f == "get_attribute" && cat.merged(t, "attributes").contains_key(name))
        || cat.merged(t, "capabilities").contains_key(name)
        || cat.requirements(t).contains_key(name);
    if !known {
        let what = if f == "get_property" {
            "property"
        } else {
            "attribute"
        };
        cx.err(
            "unresolved-reference",
            path,
            call.span,
            format!(
                "{f}: '{entity}' (type '{}') has no {what} '{name}'",
                cat.get(t).name
            ),
        );
    }
}
