//! Running a parsed body against the plan's parameters and scripts.

use super::pystr::{py_repr, py_str, truthy};
use super::{BinOp, Expr, Raised, Stmt};
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;

/// The scripts of a plan, as the body calls them: `name(...)` runs script
/// `name`; `name.fn(...)` runs function `fn` of it (murano-agent's
/// `FunctionRunner`).
pub trait Scripts {
    fn has(&self, name: &str) -> bool;
    fn call(
        &mut self,
        script: &str,
        function: Option<&str>,
        args: Vec<Json>,
        kwargs: Vec<(String, Json)>,
    ) -> Result<Json, Raised>;
}

/// What a name or attribute can stand for.
#[derive(Clone, Debug)]
enum Val {
    J(Json),
    Script(String),
    ScriptFn(String, String),
    Builtin(&'static str),
    Method(Json, String),
}

const BUILTINS: &[&str] = &["str", "int", "float", "bool", "len", "repr", "dict", "list"];

struct Env<'a> {
    vars: HashMap<String, Json>,
    params: &'a Json,
    scripts: &'a mut dyn Scripts,
}

/// Run `body` with `args` = `params`; the value it returns (None: null).
pub fn eval_body(body: &[Stmt], params: &Json, scripts: &mut dyn Scripts) -> Result<Json, Raised> {
    let mut env = Env {
        vars: HashMap::new(),
        params,
        scripts,
    };
    Ok(env.block(body)?.unwrap_or(Json::Null))
}

fn type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "NoneType",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.is_f64() => "float",
        Json::Number(_) => "int",
        Json::String(_) => "str",
        Json::Array(_) => "list",
        Json::Object(_) => "dict",
    }
}

fn num(v: &Json) -> Option<f64> {
    match v {
        Json::Bool(b) => Some(*b as i64 as f64),
        Json::Number(n) => n.as_f64(),
        _ => None,
    }
}

fn py_eq(a: &Json, b: &Json) -> bool {
    match (num(a), num(b)) {
        (Some(x), Some(y)) if !a.is_string() && !b.is_string() => x == y,
        _ => a == b,
    }
}

fn int_or_float(f: f64, both_int: bool) -> Json {
    if both_int && f.fract() == 0.0 && f.abs() < 9e15 {
        json!(f as i64)
    } else {
        json!(f)
    }
}

impl Env<'_> {
    fn block(&mut self, stmts: &[Stmt]) -> Result<Option<Json>, Raised> {
        for s in stmts {
            match s {
                Stmt::Return(e) => {
                    return Ok(Some(match e {
                        Some(e) => self.value(e)?,
                        None => Json::Null,
                    }))
                }
                Stmt::Expr(e) => {
                    self.eval(e)?;
                }
                Stmt::Assign(n, e) => {
                    let v = self.value(e)?;
                    self.vars.insert(n.clone(), v);
                }
                Stmt::If(branches, otherwise) => {
                    let mut taken = None;
                    for (c, b) in branches {
                        if truthy(&self.value(c)?) {
                            taken = Some(b);
                            break;
                        }
                    }
                    if let Some(r) = self.block(taken.unwrap_or(otherwise))? {
                        return Ok(Some(r));
                    }
                }
                Stmt::Pass => {}
            }
        }
        Ok(None)
    }

    fn value(&mut self, e: &Expr) -> Result<Json, Raised> {
        match self.eval(e)? {
            Val::J(j) => Ok(j),
            Val::Script(n) | Val::ScriptFn(n, _) => Ok(Json::String(format!("<script {n}>"))),
            Val::Builtin(n) => Ok(Json::String(format!("<built-in function {n}>"))),
            Val::Method(_, m) => Ok(Json::String(format!("<method {m}>"))),
        }
    }

    fn name(&self, n: &str) -> Result<Val, Raised> {
        if let Some(v) = self.vars.get(n) {
            return Ok(Val::J(v.clone()));
        }
        if n == "args" {
            return Ok(Val::J(match self.params {
                Json::Null => json!({}),
                p => p.clone(),
            }));
        }
        if self.scripts.has(n) {
            return Ok(Val::Script(n.to_string()));
        }
        if let Some(b) = BUILTINS.iter().find(|b| **b == n) {
            return Ok(Val::Builtin(b));
        }
        Err(Raised::new(format!("NameError: name '{n}' is not defined")))
    }

    fn eval(&mut self, e: &Expr) -> Result<Val, Raised> {
        Ok(match e {
            Expr::Const(j) => Val::J(j.clone()),
            Expr::Name(n) => self.name(n)?,
            Expr::Attr(o, a) => match self.eval(o)? {
                Val::Script(s) => Val::ScriptFn(s, a.clone()),
                Val::J(Json::Object(m)) if m.contains_key(a) => Val::J(m[a].clone()),
                Val::J(j @ Json::Object(_))
                    if ["get", "keys", "values", "items"].contains(&a.as_str()) =>
                {
                    Val::Method(j, a.clone())
                }
                Val::J(Json::Object(_)) => return Err(Raised::new(format!("KeyError: '{a}'"))),
                Val::J(j @ Json::String(_)) => Val::Method(j, a.clone()),
                Val::J(j) => {
                    return Err(Raised::new(format!(
                        "AttributeError: '{}' object has no attribute '{a}'",
                        type_name(&j)
                    )))
                }
                _ => return Err(Raised::new(format!("AttributeError: no attribute '{a}'"))),
            },
            Expr::Index(o, i) => {
                let (o, i) = (self.value(o)?, self.value(i)?);
                Val::J(index(&o, &i)?)
            }
            Expr::Call(f, args, kwargs) => {
                let f = self.eval(f)?;
                let mut a = Vec::with_capacity(args.len());
                for x in args {
                    a.push(self.value(x)?);
                }
                let mut kw = Vec::with_capacity(kwargs.len());
                for (k, x) in kwargs {
                    kw.push((k.clone(), self.value(x)?));
                }
                Val::J(self.call(f, a, kw)?)
            }
            Expr::Not(x) => Val::J(json!(!truthy(&self.value(x)?))),
            Expr::Neg(x) => {
                let v = self.value(x)?;
                let f = num(&v).ok_or_else(|| {
                    Raised::new(format!(
                        "TypeError: bad operand type for unary -: '{}'",
                        type_name(&v)
                    ))
                })?;
                Val::J(int_or_float(-f, !v.is_f64()))
            }
            Expr::Logic(is_and, l, r) => {
                let l = self.value(l)?;
                if truthy(&l) == *is_and {
                    Val::J(self.value(r)?)
                } else {
                    Val::J(l)
                }
            }
            Expr::Bin(op, l, r) => {
                let (l, r) = (self.value(l)?, self.value(r)?);
                Val::J(binary(*op, &l, &r)?)
            }
            Expr::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    out.push(self.value(x)?);
                }
                Val::J(Json::Array(out))
            }
            Expr::Dict(pairs) => {
                let mut m = Map::new();
                for (k, v) in pairs {
                    let k = py_str(&self.value(k)?);
                    m.insert(k, self.value(v)?);
                }
                Val::J(Json::Object(m))
            }
        })
    }

    fn call(
        &mut self,
        f: Val,
        args: Vec<Json>,
        kwargs: Vec<(String, Json)>,
    ) -> Result<Json, Raised> {
        match f {
            Val::Script(s) => self.scripts.call(&s, None, args, kwargs),
            Val::ScriptFn(s, func) => self.scripts.call(&s, Some(&func), args, kwargs),
            Val::Builtin(b) => builtin(b, &args),
            Val::Method(recv, m) => method(&recv, &m, &args, &kwargs),
            Val::J(j) => Err(Raised::new(format!(
                "TypeError: '{}' object is not callable",
                type_name(&j)
            ))),
        }
    }
}

fn index(o: &Json, i: &Json) -> Result<Json, Raised> {
    match (o, i) {
        (Json::Object(m), k) => m
            .get(&py_str(k))
            .cloned()
            .ok_or_else(|| Raised::new(format!("KeyError: {}", py_repr(k)))),
        (Json::Array(a), Json::Number(n)) => {
            let k = n.as_i64().unwrap_or(i64::MAX);
            let at = if k < 0 { a.len() as i64 + k } else { k };
            a.get(at as usize)
                .cloned()
                .filter(|_| at >= 0)
                .ok_or_else(|| Raised::new("IndexError: list index out of range"))
        }
        (Json::String(s), Json::Number(n)) => {
            let chars: Vec<char> = s.chars().collect();
            let k = n.as_i64().unwrap_or(i64::MAX);
            let at = if k < 0 { chars.len() as i64 + k } else { k };
            chars
                .get(at as usize)
                .filter(|_| at >= 0)
                .map(|c| json!(c.to_string()))
                .ok_or_else(|| Raised::new("IndexError: string index out of range"))
        }
        (o, _) => Err(Raised::new(format!(
            "TypeError: '{}' object is not subscriptable",
            type_name(o)
        ))),
    }
}

fn binary(op: BinOp, l: &Json, r: &Json) -> Result<Json, Raised> {
    let bad = || {
        Raised::new(format!(
            "TypeError: unsupported operand types for {op:?}: '{}' and '{}'",
            type_name(l),
            type_name(r)
        ))
    };
    let both_int = !l.is_f64() && !r.is_f64();
    Ok(match op {
        BinOp::Eq => json!(py_eq(l, r)),
        BinOp::Ne => json!(!py_eq(l, r)),
        BinOp::Is => json!(l == r && (l.is_null() || l.is_boolean())),
        BinOp::IsNot => json!(!(l == r && (l.is_null() || l.is_boolean()))),
        BinOp::In | BinOp::NotIn => {
            let found = match r {
                Json::String(s) => s.contains(&py_str(l)),
                Json::Array(a) => a.iter().any(|x| py_eq(x, l)),
                Json::Object(m) => m.contains_key(&py_str(l)),
                _ => return Err(bad()),
            };
            json!(found == (op == BinOp::In))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let ord = match (l, r, num(l), num(r)) {
                (Json::String(a), Json::String(b), _, _) => a.cmp(b),
                (_, _, Some(a), Some(b)) => a.partial_cmp(&b).ok_or_else(bad)?,
                _ => return Err(bad()),
            };
            json!(match op {
                BinOp::Lt => ord.is_lt(),
                BinOp::Le => ord.is_le(),
                BinOp::Gt => ord.is_gt(),
                _ => ord.is_ge(),
            })
        }
        BinOp::Add => match (l, r) {
            (Json::String(a), Json::String(b)) => json!(format!("{a}{b}")),
            (Json::Array(a), Json::Array(b)) => Json::Array(a.iter().chain(b).cloned().collect()),
            _ => int_or_float(num(l).ok_or_else(bad)? + num(r).ok_or_else(bad)?, both_int),
        },
        BinOp::Mul => match (l, r) {
            (Json::String(s), Json::Number(n)) | (Json::Number(n), Json::String(s)) => {
                json!(s.repeat(n.as_u64().unwrap_or(0).min(1 << 20) as usize))
            }
            _ => int_or_float(num(l).ok_or_else(bad)? * num(r).ok_or_else(bad)?, both_int),
        },
        BinOp::Sub | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => {
            let (a, b) = (num(l).ok_or_else(bad)?, num(r).ok_or_else(bad)?);
            if b == 0.0 && op != BinOp::Sub {
                return Err(Raised::new("ZeroDivisionError: division by zero"));
            }
            match op {
                BinOp::Sub => int_or_float(a - b, both_int),
                BinOp::Div => json!(a / b),
                BinOp::FloorDiv => int_or_float((a / b).floor(), both_int),
                _ => int_or_float(a - b * (a / b).floor(), both_int),
            }
        }
    })
}

fn builtin(name: &str, args: &[Json]) -> Result<Json, Raised> {
    let one = args.first().cloned().unwrap_or(Json::Null);
    Ok(match name {
        "str" => json!(args.first().map(py_str).unwrap_or_default()),
        "repr" => json!(py_repr(&one)),
        "bool" => json!(truthy(&one)),
        "len" => json!(match &one {
            Json::String(s) => s.chars().count(),
            Json::Array(a) => a.len(),
            Json::Object(m) => m.len(),
            o =>
                return Err(Raised::new(format!(
                    "TypeError: object of type '{}' has no len()",
                    type_name(o)
                ))),
        }),
        "int" => match &one {
            Json::String(s) => s.trim().parse::<i64>().map(|i| json!(i)).map_err(|_| {
                Raised::new(format!(
                    "ValueError: invalid literal for int(): {}",
                    py_repr(&one)
                ))
            })?,
            o => json!(num(o)
                .ok_or_else(|| Raised::new("TypeError: int() argument"))?
                .trunc() as i64),
        },
        "float" => match &one {
            Json::String(s) => s.trim().parse::<f64>().map(|f| json!(f)).map_err(|_| {
                Raised::new(format!(
                    "ValueError: could not convert string to float: {}",
                    py_repr(&one)
                ))
            })?,
            o => json!(num(o).ok_or_else(|| Raised::new("TypeError: float() argument"))?),
        },
        "dict" => match one {
            Json::Null => json!({}),
            o @ Json::Object(_) => o,
            o => {
                return Err(Raised::new(format!(
                    "TypeError: cannot convert '{}' to dict",
                    type_name(&o)
                )))
            }
        },
        _ => match one {
            Json::Null => json!([]),
            Json::Array(a) => Json::Array(a),
            Json::Object(m) => Json::Array(m.keys().map(|k| json!(k)).collect()),
            Json::String(s) => Json::Array(s.chars().map(|c| json!(c.to_string())).collect()),
            o => {
                return Err(Raised::new(format!(
                    "TypeError: '{}' object is not iterable",
                    type_name(&o)
                )))
            }
        },
    })
}

fn str_arg(args: &[Json], i: usize) -> Option<String> {
    args.get(i).and_then(Json::as_str).map(str::to_string)
}

fn method(recv: &Json, m: &str, args: &[Json], kwargs: &[(String, Json)]) -> Result<Json, Raised> {
    if let Json::Object(map) = recv {
        return Ok(match m {
            "get" => map
                .get(&args.first().map(py_str).unwrap_or_default())
                .cloned()
                .unwrap_or_else(|| args.get(1).cloned().unwrap_or(Json::Null)),
            "keys" => Json::Array(map.keys().map(|k| json!(k)).collect()),
            "values" => Json::Array(map.values().cloned().collect()),
            _ => Json::Array(map.iter().map(|(k, v)| json!([k, v])).collect()),
        });
    }
    let s = recv.as_str().unwrap_or_default();
    let strip_set = str_arg(args, 0);
    let strip = |c: char| match &strip_set {
        Some(set) => set.contains(c),
        None => c.is_whitespace(),
    };
    Ok(match m {
        "format" => json!(format(s, args, kwargs)?),
        "strip" => json!(s.trim_matches(strip)),
        "lstrip" => json!(s.trim_start_matches(strip)),
        "rstrip" => json!(s.trim_end_matches(strip)),
        "lower" => json!(s.to_lowercase()),
        "upper" => json!(s.to_uppercase()),
        "replace" => json!(s.replace(
            &str_arg(args, 0).unwrap_or_default(),
            &str_arg(args, 1).unwrap_or_default()
        )),
        "startswith" => json!(s.starts_with(&str_arg(args, 0).unwrap_or_default())),
        "endswith" => json!(s.ends_with(&str_arg(args, 0).unwrap_or_default())),
        "split" => Json::Array(match str_arg(args, 0) {
            Some(sep) if !sep.is_empty() => s.split(sep.as_str()).map(|p| json!(p)).collect(),
            _ => s.split_whitespace().map(|p| json!(p)).collect(),
        }),
        "splitlines" => Json::Array(s.lines().map(|p| json!(p)).collect()),
        "join" => match args.first() {
            Some(Json::Array(items)) => json!(items.iter().map(py_str).collect::<Vec<_>>().join(s)),
            _ => return Err(Raised::new("TypeError: join() takes a list")),
        },
        other => {
            return Err(Raised::new(format!(
                "AttributeError: 'str' object has no attribute '{other}'"
            )))
        }
    })
}

/// Python's `str.format` for `{}`, `{0}`, `{name}`, `{0.attr}`, `{0[key]}`,
/// `!s`/`!r` and an empty format spec.
fn format(s: &str, args: &[Json], kwargs: &[(String, Json)]) -> Result<String, Raised> {
    let mut out = String::with_capacity(s.len());
    let mut auto = 0usize;
    let mut rest = s;
    while let Some(p) = rest.find(['{', '}']) {
        out.push_str(&rest[..p]);
        let c = rest.as_bytes()[p];
        if rest[p + 1..].starts_with(c as char) {
            out.push(c as char);
            rest = &rest[p + 2..];
            continue;
        }
        if c == b'}' {
            return Err(Raised::new(
                "ValueError: Single '}' encountered in format string",
            ));
        }
        let end = rest[p..]
            .find('}')
            .ok_or_else(|| Raised::new("ValueError: Single '{' encountered in format string"))?;
        let field = &rest[p + 1..p + end];
        rest = &rest[p + end + 1..];
        let (field, spec) = field.split_once(':').unwrap_or((field, ""));
        let (field, conv) = field.split_once('!').unwrap_or((field, "s"));
        let head_end = field.find(['.', '[']).unwrap_or(field.len());
        let head = &field[..head_end];
        let mut v = if head.is_empty() {
            auto += 1;
            args.get(auto - 1).cloned()
        } else if let Ok(i) = head.parse::<usize>() {
            args.get(i).cloned()
        } else {
            kwargs
                .iter()
                .find(|(k, _)| k == head)
                .map(|(_, v)| v.clone())
        }
        .ok_or_else(|| Raised::new(format!("IndexError: format field {head:?} has no argument")))?;
        let mut path = &field[head_end..];
        while !path.is_empty() {
            let (key, next) = if let Some(r) = path.strip_prefix('.') {
                let e = r.find(['.', '[']).unwrap_or(r.len());
                (&r[..e], &r[e..])
            } else {
                let e = path
                    .find(']')
                    .ok_or_else(|| Raised::new("ValueError: missing ']' in format string"))?;
                (&path[1..e], &path[e + 1..])
            };
            v = match key.parse::<i64>() {
                Ok(i) if v.is_array() => index(&v, &json!(i))?,
                _ => index(&v, &json!(key))?,
            };
            path = next;
        }
        if !spec.is_empty() {
            return Err(Raised::new(format!(
                "ValueError: format spec {spec:?} is not supported"
            )));
        }
        out.push_str(&if conv == "r" { py_repr(&v) } else { py_str(&v) });
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::parse_body;
    use super::*;

    struct Rec(Vec<String>);
    impl Scripts for Rec {
        fn has(&self, n: &str) -> bool {
            n == "deploy"
        }
        fn call(
            &mut self,
            s: &str,
            f: Option<&str>,
            a: Vec<Json>,
            _k: Vec<(String, Json)>,
        ) -> Result<Json, Raised> {
            self.0.push(format!(
                "{s}/{f:?}/{}",
                a.iter().map(py_str).collect::<Vec<_>>().join("|")
            ));
            Ok(json!({"exitCode": 0, "stdout": "out", "stderr": null}))
        }
    }

    fn run(body: &str, params: Json) -> (Result<Json, Raised>, Vec<String>) {
        let mut r = Rec(vec![]);
        let b = parse_body(body).unwrap();
        (eval_body(&b, &params, &mut r), r.0)
    }

    #[test]
    fn bodies_call_scripts_with_formatted_arguments() {
        let (v, calls) = run(
            "return deploy('{0} {1}'.format(args.a, args.b)).stdout",
            json!({"a": "x", "b": 2}),
        );
        assert_eq!(v.unwrap(), json!("out"));
        assert_eq!(calls, vec!["deploy/None/x 2"]);
        let (v, _) = run(
            "return deploy(\"'{0}'\".format(args.p)).exitCode == 0",
            json!({"p": "/a"}),
        );
        assert_eq!(v.unwrap(), json!(true));
        let (v, calls) = run(
            "if args.w:\n  deploy.fn(1, input='x')\nelse:\n  return 3\nreturn 4",
            json!({"w": false}),
        );
        assert_eq!((v.unwrap(), calls.len()), (json!(3), 0));
        let (v, calls) = run(
            "if args.w:\n  deploy.fn(1)\nelse:\n  return 3\nreturn 4",
            json!({"w": true}),
        );
        assert_eq!(
            (v.unwrap(), calls),
            (json!(4), vec!["deploy/Some(\"fn\")/1".to_string()])
        );
    }

    #[test]
    fn python_errors_are_raised() {
        let (v, _) = run("return args.missing", json!({}));
        assert_eq!(v.unwrap_err().message, "KeyError: 'missing'");
        let (v, _) = run("return nothing()", json!({}));
        assert!(v.unwrap_err().message.contains("NameError"));
        let (v, _) = run(
            "return '{0} {k!r} {{x}} {1[0]}'.format(1, [True], k='a')",
            json!({}),
        );
        assert_eq!(v.unwrap(), json!("1 'a' {x} True"));
        let (v, _) = run("return 7 // 2 + 1.5 * 2 - len('ab') + int('3')", json!({}));
        assert_eq!(v.unwrap(), json!(7.0));
        let (v, _) = run("return 1 / 0", json!({}));
        assert!(v.unwrap_err().message.starts_with("ZeroDivisionError"));
    }
}
