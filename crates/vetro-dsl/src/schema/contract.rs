//! Contracts to JSON Schema, as Murano's schema generator read them: the
//! contract is walked as written (a map is an object, a list an array, an
//! expression a chain of contract calls on `$`), never run. Calls that
//! carry no schema meaning leave the schema as it is.

use crate::syntax::data::Data;
use crate::syntax::namespaces::Namespaces;
use serde_json::{json, Map, Value as Json};
use vetro_yaql_syntax::{parse, Arg, Expr, ExprKind, Literal, ParserOptions};

/// Marks a schema whose value may not be null while the chain is walked
/// (Murano's `_notNull`); dropped from the result.
const NOT_NULL: &str = "_notNull";

/// The JSON Schema of a contract (`Null` when the contract is a plain
/// value, which Murano's generator does not translate).
pub(super) fn translate(contract: &Data, ns: &Namespaces) -> Json {
    match contract {
        Data::Map(entries, _) => {
            let mut properties = Map::new();
            let mut additional = Json::Bool(false);
            for (k, v) in entries {
                match k {
                    Data::Expr(_) => additional = translate(v, ns),
                    other => {
                        let key = other.key_text().map_or_else(
                            || crate::schema::data_json(other).to_string(),
                            str::to_string,
                        );
                        properties.insert(key, translate(v, ns));
                    }
                }
            }
            json!({"type": "object", "properties": properties, "additionalProperties": additional})
        }
        Data::List(items, _) => {
            let mut items: Vec<Json> = items
                .iter()
                .filter(|d| !matches!(d, Data::Int(_) | Data::BigInt(_)))
                .map(|d| translate(d, ns))
                .collect();
            match items.len() {
                0 => json!({"type": "array"}),
                1 => json!({"type": "array", "items": items.pop()}),
                _ => {
                    let last = items.last().cloned();
                    json!({"type": "array", "items": items, "additionalItems": last})
                }
            }
        }
        Data::Expr(e) => expression(&e.text, ns),
        _ => Json::Null,
    }
}

/// The schema of one contract expression (`{}` when it is not a chain on `$`).
fn expression(text: &str, ns: &Namespaces) -> Json {
    let opts = ParserOptions {
        colon: true,
        ..ParserOptions::default()
    };
    let mut schema = parse(text, opts)
        .ok()
        .and_then(|e| chain(&e, ns))
        .unwrap_or_default();
    schema.remove(NOT_NULL);
    Json::Object(schema)
}

fn is_dollar(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Var(v) if &**v == "1")
}

fn positional(args: &[Arg]) -> Vec<&Expr> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Pos(e) => Some(&**e),
            _ => None,
        })
        .collect()
}

fn named<'a>(args: &'a [Arg], name: &str) -> Option<&'a Expr> {
    args.iter().find_map(|a| match a {
        Arg::Named(k, v) if matches!(&k.kind, ExprKind::Keyword(n) if &**n == name) => Some(&**v),
        _ => None,
    })
}

/// A simple type: `[TYPE, "null"]` unless the chain so far is not-null.
fn simple(kind: &str, so_far: &Map<String, Json>) -> Map<String, Json> {
    let mut out = Map::new();
    let t = if so_far.contains_key(NOT_NULL) {
        json!(kind)
    } else {
        json!([kind, "null"])
    };
    out.insert("type".into(), t);
    if so_far.contains_key(NOT_NULL) {
        out.insert(NOT_NULL.into(), Json::Bool(true));
    }
    out
}

/// A class name written as an argument: a bare word, a string, or `ns:Name`.
fn type_name(e: &Expr, ns: &Namespaces) -> Option<String> {
    let written = match &e.kind {
        ExprKind::Keyword(k) => k.to_string(),
        ExprKind::Const(Literal::Str(s)) => s.to_string(),
        ExprKind::Call { name, args, .. } if &**name == "#operator_:" => {
            let parts = positional(args);
            let word = |x: &Expr| match &x.kind {
                ExprKind::Keyword(k) => Some(k.to_string()),
                _ => None,
            };
            match parts.as_slice() {
                [a, b] => format!("{}:{}", word(a)?, word(b)?),
                [b] => format!(":{}", word(b)?),
                _ => return None,
            }
        }
        _ => return None,
    };
    ns.resolve(&written).ok()
}

/// Walk `$.a().b()...`: the schema each call makes of the one before.
fn chain(e: &Expr, ns: &Namespaces) -> Option<Map<String, Json>> {
    if is_dollar(e) {
        return Some(Map::new());
    }
    let ExprKind::Method {
        recv, name, args, ..
    } = &e.kind
    else {
        return None;
    };
    let mut s = chain(recv, ns)?;
    match &**name {
        "string" => s = simple("string", &s),
        "int" => s = simple("integer", &s),
        "bool" => s = simple("boolean", &s),
        "notNull" => {
            if let Some(Json::Array(types)) = s.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types[0].clone();
                    s.insert("type".into(), only);
                }
            }
            s.insert(NOT_NULL.into(), Json::Bool(true));
        }
        "class" | "template" => {
            let class = positional(args)
                .first()
                .and_then(|t| type_name(t, ns))
                .unwrap_or_default();
            let mut out = simple("muranoObject", &s);
            out.insert("muranoType".into(), Json::String(class));
            if &**name == "template" {
                out.insert("owned".into(), Json::Bool(true));
                let excluded = named(args, "excludeProperties")
                    .or_else(|| positional(args).get(3).copied())
                    .and_then(constant)
                    .filter(|v| v.as_array().is_some_and(|a| !a.is_empty()));
                if let Some(x) = excluded {
                    out.insert("excludedProperties".into(), x);
                }
            }
            s = out;
        }
        "owned" => {
            s.insert("owned".into(), Json::Bool(true));
        }
        "notOwned" => {
            s.insert("owned".into(), Json::Bool(false));
        }
        "check" => {
            if let Some(pred) = positional(args).first() {
                check_patterns(pred, &mut s);
            }
        }
        _ => {}
    }
    Some(s)
}

/// What a `check()` predicate says in schema terms: bounds (`$ > 0`,
/// `10 >= $`), a set of values (`$ in [a, b]`) and a pattern
/// (`$.matches(re)`), each side of every `and`.
fn check_patterns(pred: &Expr, s: &mut Map<String, Json>) {
    let ExprKind::Call { name, args, .. } = &pred.kind else {
        if let ExprKind::Method {
            recv, name, args, ..
        } = &pred.kind
        {
            if is_dollar(recv) && &**name == "matches" {
                if let Some(p) = positional(args).first().and_then(|a| constant(a)) {
                    s.insert("pattern".into(), p);
                }
            }
        }
        return;
    };
    let parts = positional(args);
    let [a, b] = parts.as_slice() else {
        return;
    };
    let op = name.strip_prefix("#operator_").unwrap_or("");
    if op == "and" {
        check_patterns(a, s);
        check_patterns(b, s);
        return;
    }
    if op == "in" && is_dollar(a) {
        if let Some(Json::Array(values)) = constant(b) {
            s.insert("enum".into(), Json::Array(values));
        }
        return;
    }
    // `$ OP c`, or `c OP $` read as its mirror.
    let (op, c) = if is_dollar(a) {
        (op, b)
    } else if is_dollar(b) {
        let mirrored = match op {
            ">" => "<",
            "<" => ">",
            ">=" => "<=",
            "<=" => ">=",
            _ => return,
        };
        (mirrored, a)
    } else {
        return;
    };
    let Some(c) = constant(c) else {
        return;
    };
    let (bound, exclusive_key, exclusive) = match op {
        ">" => ("minimum", "exclusiveMinimum", true),
        ">=" => ("minimum", "exclusiveMinimum", false),
        "<" => ("maximum", "exclusiveMaximum", true),
        "<=" => ("maximum", "exclusiveMaximum", false),
        _ => return,
    };
    s.insert(bound.into(), c);
    s.insert(exclusive_key.into(), Json::Bool(exclusive));
}

/// The value of an expression made of literals only (lists of them,
/// negated numbers), or `None`.
fn constant(e: &Expr) -> Option<Json> {
    match &e.kind {
        ExprKind::Const(l) => Some(match l {
            Literal::Null => Json::Null,
            Literal::Bool(b) => Json::Bool(*b),
            Literal::Int(i) => json!(i),
            Literal::Float(f) => json!(f),
            Literal::Str(s) => json!(&**s),
            Literal::BigInt(b) => json!(b.to_string()),
        }),
        ExprKind::Keyword(k) => Some(json!(&**k)),
        ExprKind::Call { name, args, .. } if &**name == "#list" || &**name == "list" => {
            let items: Option<Vec<Json>> = args
                .iter()
                .map(|a| match a {
                    Arg::Pos(x) => constant(x),
                    _ => None,
                })
                .collect();
            items.map(Json::Array)
        }
        ExprKind::Call { name, args, .. } if &**name == "#unary_operator_-" => {
            match constant(positional(args).first()?)? {
                Json::Number(n) if n.is_i64() => Some(json!(-n.as_i64()?)),
                Json::Number(n) => Some(json!(-n.as_f64()?)),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(text: &str) -> Json {
        let mut ns = Namespaces::default();
        ns.map.insert("=".into(), "a.b".into());
        ns.map.insert("res".into(), "io.murano.resources".into());
        expression(text, &ns)
    }

    #[test]
    fn simple_types_and_not_null() {
        assert_eq!(expr("$.string()"), json!({"type": ["string", "null"]}));
        assert_eq!(expr("$.int().notNull()"), json!({"type": "integer"}));
        assert_eq!(expr("$.bool().notNull()"), json!({"type": "boolean"}));
        assert_eq!(expr("$"), json!({}));
        assert_eq!(expr("$.foo() or $.bar()"), json!({}));
    }

    #[test]
    fn classes_resolve_through_namespaces() {
        assert_eq!(
            expr("$.class(res:Instance).notNull()"),
            json!({"type": "muranoObject", "muranoType": "io.murano.resources.Instance"})
        );
        assert_eq!(
            expr("$.template(Thing, excludeProperties => [name])"),
            json!({"type": ["muranoObject", "null"], "muranoType": "a.b.Thing",
                   "owned": true, "excludedProperties": ["name"]})
        );
        assert_eq!(
            expr("$.class(Thing).owned()"),
            json!({"type": ["muranoObject", "null"], "muranoType": "a.b.Thing", "owned": true})
        );
    }

    #[test]
    fn check_predicates_become_bounds_enums_and_patterns() {
        assert_eq!(
            expr("$.int().notNull().check($ > 0 and $ <= 10)"),
            json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true,
                   "maximum": 10, "exclusiveMaximum": false})
        );
        assert_eq!(
            expr("$.int().check(15 > $)"),
            json!({"type": ["integer", "null"], "maximum": 15, "exclusiveMaximum": true})
        );
        assert_eq!(
            expr("$.string().check($ in [a, 'b'])"),
            json!({"type": ["string", "null"], "enum": ["a", "b"]})
        );
        assert_eq!(
            expr(r"$.string().notNull().check($.matches(`\d+`))"),
            json!({"type": "string", "pattern": "\\d+"})
        );
        // A bound that is not a constant says nothing.
        assert_eq!(
            expr("$.int().check($ > $this.low)"),
            json!({"type": ["integer", "null"]})
        );
    }
}
