//! Property, attribute and input definitions, and values against data types.

use super::{join, Cx};
use crate::catalog::{Catalog, Construct};
use crate::kind::ToscaKind;
use crate::values::{function_name, parse_clause, prim_problem, show, violation, Clause, Prim};
use vetro_kwalify::KwalifyKind;
use vetro_yaml::{Node, NodeKind};

/// What a type name used for a value refers to.
pub enum DataRef {
    Prim(Prim),
    Complex(usize),
    Unknown,
}

pub fn data_ref(cat: &Catalog, name: &str) -> DataRef {
    if let Some(p) = Prim::parse(name) {
        return DataRef::Prim(p);
    }
    match cat.lookup(Construct::Data, name) {
        Some(i) => DataRef::Complex(i),
        None => DataRef::Unknown,
    }
}

/// The primitive a data type derives from (`PortDef` → integer), if any.
pub fn prim_base(cat: &Catalog, i: usize) -> Option<Prim> {
    let chain = cat.ancestors(i);
    let top = *chain.last()?;
    cat.get(top).parent.as_deref().and_then(Prim::parse)
}

/// The primitive used to read constraint operands of a type name.
pub fn prim_of(cat: &Catalog, name: &str) -> Option<Prim> {
    match data_ref(cat, name) {
        DataRef::Prim(p) => Some(p),
        DataRef::Complex(i) => prim_base(cat, i),
        DataRef::Unknown => None,
    }
}

/// Whether a property definition makes its property required (TOSCA default: yes).
pub fn is_required(def: &Node) -> bool {
    def.get("required").and_then(Node::as_bool).unwrap_or(true)
}

/// The constraint clauses of a definition that parse (bad ones are reported
/// where the definition is checked).
pub fn clauses(def: &Node, prim: Option<Prim>) -> Vec<Clause> {
    def.get("constraints")
        .and_then(Node::as_seq)
        .map(|items| {
            items
                .iter()
                .filter_map(|c| parse_clause(c, prim).ok())
                .collect()
        })
        .unwrap_or_default()
}

fn type_name(def: &Node) -> Option<&str> {
    def.get("type").and_then(Node::as_str)
}

/// Check a type reference of a value definition (`type`, `entry_schema`).
fn check_type_ref(cx: &mut Cx, def: &Node, path: &str) -> bool {
    let Some(ty) = def.get("type") else {
        return true;
    };
    let Some(name) = ty.as_str() else {
        return false;
    };
    if matches!(data_ref(cx.cat, name), DataRef::Unknown) {
        cx.err(
            ToscaKind::UnknownType,
            &join(path, "type"),
            ty.span,
            format!("data type '{name}' is not declared"),
        );
        return false;
    }
    true
}

/// Check the constraint clauses of a definition; true when all parse.
pub fn check_constraints(cx: &mut Cx, def: &Node, prim: Option<Prim>, path: &str) -> bool {
    let Some(items) = def.get("constraints").and_then(Node::as_seq) else {
        return true;
    };
    let mut ok = true;
    for (i, c) in items.iter().enumerate() {
        if let Err(msg) = parse_clause(c, prim) {
            ok = false;
            let at = join(&join(path, "constraints"), &i.to_string());
            cx.err(ToscaKind::BadConstraint, &at, c.span, msg);
        }
    }
    ok
}

/// A property/attribute/input/parameter definition: type references,
/// constraint clauses, and the default value.
pub fn check_def(cx: &mut Cx, def: &Node, path: &str) {
    if def.as_map().is_none() {
        return;
    }
    let mut ok = check_type_ref(cx, def, path);
    let prim = type_name(def).and_then(|t| prim_of(cx.cat, t));
    if let Some(es) = def.get("entry_schema") {
        let es_path = join(path, "entry_schema");
        if check_type_ref(cx, es, &es_path) {
            let es_prim = type_name(es).and_then(|t| prim_of(cx.cat, t));
            ok &= check_constraints(cx, es, es_prim, &es_path);
        } else {
            ok = false;
        }
    }
    ok &= check_constraints(cx, def, prim, path);
    if ok {
        if let Some(default) = def.get("default") {
            check_value(cx, def, default, &join(path, "default"));
        }
    }
}

/// A value assigned under a definition: its data type, then the definition's
/// constraints. Function calls are not literals and are not checked here.
pub fn check_value(cx: &mut Cx, def: &Node, value: &Node, path: &str) {
    if value.is_null() || function_name(value).is_some() {
        return;
    }
    let Some(ty) = type_name(def) else {
        return;
    };
    if !check_typed(cx, ty, def.get("entry_schema"), value, path) {
        return;
    }
    let prim = prim_of(cx.cat, ty);
    for clause in clauses(def, prim) {
        if let Some(msg) = violation(&clause, prim, value) {
            cx.err(ToscaKind::ConstraintViolation, path, value.span, msg);
        }
    }
}

/// A property assigned directly in a template. As in tosca-parser, a scalar
/// assigned to a `string` property is taken as its text (`password: 123`);
/// values nested in lists, maps and data types are checked strictly.
pub fn check_assignment(cx: &mut Cx, def: &Node, value: &Node, path: &str) {
    let is_string = type_name(def) == Some("string");
    if is_string && value.is_scalar() && !value.is_null() && value.as_str().is_none() {
        let text = value.scalar_text().unwrap_or_default();
        let as_text = Node::new(NodeKind::Str(text), value.span);
        check_value(cx, def, &as_text, path);
    } else {
        check_value(cx, def, value, path);
    }
}

/// Check `value` against the data type `ty`; false if it is not of that type.
pub fn check_typed(
    cx: &mut Cx,
    ty: &str,
    entry_schema: Option<&Node>,
    value: &Node,
    path: &str,
) -> bool {
    if value.is_null() || function_name(value).is_some() {
        return true;
    }
    match data_ref(cx.cat, ty) {
        DataRef::Unknown => true,
        DataRef::Prim(p) => {
            if let Some(msg) = prim_problem(p, value) {
                cx.err(ToscaKind::BadValue, path, value.span, msg);
                return false;
            }
            if let Some(es) = entry_schema.filter(|es| es.as_map().is_some()) {
                match &value.kind {
                    NodeKind::Seq(items) if p == Prim::List => {
                        for (i, item) in items.iter().enumerate() {
                            check_value(cx, es, item, &join(path, &i.to_string()));
                        }
                    }
                    NodeKind::Map(m) if p == Prim::Map => {
                        for (k, v) in m.iter() {
                            let seg = k.scalar_text().unwrap_or_default();
                            check_value(cx, es, v, &join(path, &seg));
                        }
                    }
                    _ => {}
                }
            }
            true
        }
        DataRef::Complex(i) => check_complex(cx, i, value, path),
    }
}

fn check_complex(cx: &mut Cx, i: usize, value: &Node, path: &str) -> bool {
    let cat = cx.cat;
    if cat.chain_broken(i) {
        return true;
    }
    let name = cat.get(i).name.clone();
    if let Some(p) = prim_base(cat, i) {
        if let Some(msg) = prim_problem(p, value) {
            cx.err(
                ToscaKind::BadValue,
                path,
                value.span,
                format!("{msg} (data type '{name}')"),
            );
            return false;
        }
        for &t in cat.ancestors(i).iter() {
            for clause in clauses(&cat.get(t).def, Some(p)) {
                if let Some(msg) = violation(&clause, Some(p), value) {
                    cx.err(
                        ToscaKind::ConstraintViolation,
                        path,
                        value.span,
                        format!("{msg} (data type '{name}')"),
                    );
                }
            }
        }
        return true;
    }
    let Some(map) = value.as_map() else {
        cx.err(
            ToscaKind::BadValue,
            path,
            value.span,
            format!(
                "{} is not a valid value of data type '{name}' (a mapping of its properties)",
                show(value)
            ),
        );
        return false;
    };
    let props = cat.merged(i, "properties");
    for (k, v) in map.iter() {
        let key = k.scalar_text().unwrap_or_default();
        match props.get(&key) {
            Some(def) => check_value(cx, def, v, &join(path, &key)),
            None => cx.err(
                ToscaKind::UndeclaredName,
                &join(path, &key),
                k.span,
                format!("data type '{name}' has no property '{key}'"),
            ),
        }
    }
    for (key, def) in props.iter() {
        let assigned = map.get(key).is_some_and(|v| !v.is_null());
        if !assigned && is_required(def) && def.get("default").is_none() {
            cx.err(
                KwalifyKind::MissingRequired,
                &join(path, key),
                value.span,
                format!("required property '{key}' of data type '{name}' is not given"),
            );
        }
    }
    true
}
