//! An action's parameters as form fields, from its method's argument
//! contracts: `$.int()` is a whole number (with the bounds of a
//! `check($ > 0 and $ <= 10)`), `$.bool()` a check box, `$.string()` a text
//! box, `check($ in list(a, b))` a select, `notNull()` makes it required, a
//! list contract takes one item per line, anything else a JSON value. The
//! browser checks the cheap rules; [`Param::read`] checks them all again and
//! says what is wrong at the field. The engine still applies the full
//! contract when the action runs.

use serde_json::{json, Value};
use vetro_dsl::syntax::class::ArgDef;
use vetro_dsl::syntax::data::Data;
use vetro_forms::choices::Choice;
use vetro_forms::view::{ErrorMessages, FieldView};

/// The kind of value a contract asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Text,
    Integer,
    Boolean,
    /// One of a fixed set of values.
    Choice(Vec<Value>),
    /// A list (one item per line), its items of this kind.
    List(Box<Kind>),
    /// Any value, written as JSON (plain text is taken as a string).
    Any,
}

/// One parameter of an action.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub kind: Kind,
    pub required: bool,
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub default: Option<Value>,
    /// The contract as written, shown as the field's help.
    pub contract: Option<String>,
}

/// What a contract expression's call chain says.
#[derive(Default)]
struct Chain {
    kind: Option<Kind>,
    required: bool,
    min: Option<i64>,
    max: Option<i64>,
    choices: Vec<Value>,
}

/// The top-level `.name(args)` calls of `$.a().b(x)`, or `None` when the
/// expression is not such a chain.
fn calls(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut rest = text.trim().strip_prefix('$')?;
    let mut out = Vec::new();
    while !rest.is_empty() {
        rest = rest.trim_start().strip_prefix('.')?;
        let open = rest.find('(')?;
        let name = rest[..open].trim();
        let close = open + matching_paren(&rest[open..])?;
        out.push((name, rest[open + 1..close].trim()));
        rest = &rest[close + 1..];
    }
    Some(out)
}

/// The offset of the parenthesis closing the one `s` starts with (quotes respected).
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at top-level `sep` (outside brackets and quotes).
fn split_top<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    let (mut out, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None, 0);
    let mut skip_to = 0;
    for (i, c) in s.char_indices() {
        if i < skip_to {
            continue;
        }
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, _) if depth == 0 && s[i..].starts_with(sep) => {
                out.push(s[start..i].trim());
                start = i + sep.len();
                skip_to = start;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// A literal of a YAQL list: a quoted string, a number, or a bare word
/// (which YAQL reads as a string).
fn literal(s: &str) -> Option<Value> {
    let s = s.trim();
    if let Some(q) = s.chars().next().filter(|c| matches!(c, '\'' | '"')) {
        return s
            .strip_prefix(q)
            .and_then(|r| r.strip_suffix(q))
            .map(|t| json!(t));
    }
    if let Ok(n) = s.parse::<i64>() {
        return Some(json!(n));
    }
    let word = s
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    match s {
        "true" => Some(json!(true)),
        "false" => Some(json!(false)),
        "null" => None,
        _ if word => Some(json!(s)),
        _ => None,
    }
}

/// The values of `list(a, b)`, `[a, b]` or `(a, b)`.
fn list_literal(s: &str) -> Option<Vec<Value>> {
    let s = s.trim();
    let inner = s
        .strip_prefix("list(")
        .or_else(|| s.strip_prefix('['))
        .or_else(|| s.strip_prefix('('))?;
    let inner = inner
        .strip_suffix(')')
        .or_else(|| inner.strip_suffix(']'))?;
    split_top(inner, ",")
        .into_iter()
        .filter(|x| !x.is_empty())
        .map(literal)
        .collect()
}

/// One condition of a `check(...)`: bounds and choices.
fn condition(c: &mut Chain, cond: &str) {
    let cond = cond.trim();
    if let Some(list) = cond.strip_prefix("$ in ").and_then(list_literal) {
        c.choices = list;
        return;
    }
    for (op, bound) in [(">=", 0), ("<=", 0), (">", 1), ("<", -1)] {
        if let Some(n) = cond
            .strip_prefix("$")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix(op))
            .and_then(|r| r.trim().parse::<i64>().ok())
        {
            let n = n.saturating_add(bound);
            if op.starts_with('>') {
                c.min = Some(c.min.map_or(n, |m| m.max(n)));
            } else {
                c.max = Some(c.max.map_or(n, |m| m.min(n)));
            }
            return;
        }
    }
}

fn chain(text: &str) -> Chain {
    let mut c = Chain::default();
    for (name, args) in calls(text).unwrap_or_default() {
        match name {
            "int" => c.kind = Some(Kind::Integer),
            "string" => c.kind = Some(Kind::Text),
            "bool" => c.kind = Some(Kind::Boolean),
            // An object is named by its id.
            "class" | "template" => c.kind = Some(Kind::Text),
            "notNull" => c.required = true,
            "check" => split_top(args, " and ")
                .into_iter()
                .for_each(|cond| condition(&mut c, cond)),
            _ => {}
        }
    }
    c
}

/// The kind of a list contract's items (`[$.int()]`).
fn item_kind(items: &[Data]) -> Kind {
    match items.first().and_then(Data::key_text).map(chain) {
        Some(Chain {
            kind: Some(Kind::Integer),
            ..
        }) => Kind::Integer,
        Some(Chain { kind: Some(_), .. }) => Kind::Text,
        _ => Kind::Any,
    }
}

/// A constant of a class file as JSON (a default value).
fn constant(d: &Data) -> Option<Value> {
    Some(match d {
        Data::Null => Value::Null,
        Data::Bool(b) => json!(b),
        Data::Int(i) => json!(i),
        Data::Float(f) => json!(f),
        Data::Str(s) => json!(s.as_ref()),
        Data::List(items, _) => Value::Array(items.iter().map(constant).collect::<Option<_>>()?),
        Data::Map(m, _) => Value::Object(
            m.iter()
                .map(|(k, v)| Some((k.key_text()?.to_string(), constant(v)?)))
                .collect::<Option<_>>()?,
        ),
        Data::BigInt(_) | Data::Expr(_) => return None,
    })
}

impl Param {
    /// The parameter a method argument's contract describes.
    pub fn from_arg(a: &ArgDef) -> Param {
        let (kind, c) = match &a.contract {
            Some(Data::List(items, _)) => {
                (Kind::List(Box::new(item_kind(items))), Chain::default())
            }
            Some(d @ (Data::Expr(_) | Data::Str(_))) => {
                let c = chain(d.key_text().unwrap_or_default());
                let kind = match (&c.kind, c.choices.is_empty()) {
                    (_, false) => Kind::Choice(c.choices.clone()),
                    (Some(k), true) => k.clone(),
                    (None, true) => Kind::Any,
                };
                (kind, c)
            }
            _ => (Kind::Any, Chain::default()),
        };
        let default = a.default.as_ref().and_then(constant);
        Param {
            name: a.name.clone(),
            kind,
            required: c.required && default.is_none(),
            min: c.min,
            max: c.max,
            default,
            contract: a.contract.as_ref().map(contract_text),
        }
    }

    /// The field that asks for this parameter.
    pub fn field(&self) -> FieldView {
        let kind = match &self.kind {
            Kind::Text => "string",
            Kind::Integer => "integer",
            Kind::Boolean => "boolean",
            Kind::Choice(_) => "choice",
            Kind::List(_) | Kind::Any => "text",
        };
        let choices = match &self.kind {
            Kind::Choice(values) => Some(
                values
                    .iter()
                    .map(|v| Choice {
                        value: v.clone(),
                        label: crate::fields::as_text(v),
                        enabled: true,
                        aliases: Vec::new(),
                    })
                    .collect(),
            ),
            _ => None,
        };
        let help = match &self.kind {
            Kind::List(_) => Some("One item per line.".to_string()),
            Kind::Any => Some("A JSON value (plain text is taken as a string).".to_string()),
            _ => None,
        };
        FieldView {
            name: self.name.clone(),
            kind,
            app_types: Vec::new(),
            label: self.name.clone(),
            description: self.contract.as_ref().map(|c| format!("Contract: {c}")),
            description_title: None,
            help_text: help,
            required: self.required,
            hidden: false,
            initial: self.initial(),
            min_length: None,
            max_length: None,
            min_value: self.min,
            max_value: self.max,
            regexps: Vec::new(),
            choices,
            confirm_input: false,
            messages: ErrorMessages::default(),
        }
    }

    /// The value the field starts with: the default, as the field shows it.
    fn initial(&self) -> Value {
        match (&self.kind, &self.default) {
            (_, None) => Value::Null,
            (Kind::List(_), Some(Value::Array(items))) => json!(items
                .iter()
                .map(crate::fields::as_text)
                .collect::<Vec<_>>()
                .join("\n")),
            (Kind::Any, Some(v)) if !v.is_string() => json!(v.to_string()),
            (_, Some(v)) => v.clone(),
        }
    }

    /// The argument from the field's posted text: `Ok(None)` leaves it out
    /// (the method's default applies), `Err` is the message for the field.
    pub fn read(&self, raw: Option<&str>) -> Result<Option<Value>, String> {
        let text = raw.unwrap_or_default().trim();
        if self.kind == Kind::Boolean {
            return Ok(Some(json!(matches!(text, "true" | "on"))));
        }
        if text.is_empty() {
            return match self.required {
                true => Err("This field is required.".into()),
                false => Ok(None),
            };
        }
        let v = match &self.kind {
            Kind::Integer => json!(self.integer(text)?),
            Kind::Choice(values) => values
                .iter()
                .find(|v| crate::fields::as_text(v) == text)
                .cloned()
                .ok_or_else(|| "Choose one of the listed values.".to_string())?,
            Kind::List(item) => Value::Array(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(|l| match **item {
                        Kind::Integer => self.integer(l).map(Value::from),
                        Kind::Any => Ok(serde_json::from_str(l).unwrap_or_else(|_| json!(l))),
                        _ => Ok(json!(l)),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Kind::Any => serde_json::from_str(text).unwrap_or_else(|_| json!(text)),
            Kind::Text | Kind::Boolean => json!(text),
        };
        Ok(Some(v))
    }

    fn integer(&self, text: &str) -> Result<i64, String> {
        let n = text
            .parse::<i64>()
            .map_err(|_| format!("'{text}' is not a whole number."))?;
        match (self.min, self.max) {
            (Some(m), _) if n < m => Err(format!("The value must be at least {m}.")),
            (_, Some(m)) if n > m => Err(format!("The value must be at most {m}.")),
            _ => Ok(n),
        }
    }
}

/// A contract as its author wrote it, on one line.
fn contract_text(d: &Data) -> String {
    match d {
        Data::Expr(_) | Data::Str(_) => d.key_text().unwrap_or_default().to_string(),
        Data::List(items, _) => format!(
            "[{}]",
            items
                .iter()
                .map(contract_text)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Data::Map(m, _) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", contract_text(k), contract_text(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => constant(other).map(|v| v.to_string()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vetro_dsl::syntax::class::ArgUsage;
    use vetro_dsl::syntax::data::Expr;

    fn arg(contract: &str, default: Option<Data>) -> ArgDef {
        ArgDef {
            name: "x".into(),
            contract: Some(Data::Expr(
                Expr::parse(contract, Default::default()).expect("parses"),
            )),
            default,
            usage: ArgUsage::Standard,
            meta: Data::Null,
        }
    }

    #[test]
    fn contracts_give_typed_fields() {
        let p = Param::from_arg(&arg("$.int().notNull().check($ > 0 and $ <= 10)", None));
        assert_eq!(
            (p.kind.clone(), p.required, p.min, p.max),
            (Kind::Integer, true, Some(1), Some(10))
        );
        assert_eq!(p.field().kind, "integer");
        let p = Param::from_arg(&arg("$.bool()", None));
        assert_eq!(p.field().kind, "boolean");
        let p = Param::from_arg(&arg(
            "$.string().notNull().check($ in list(graceful, 'hard stop'))",
            None,
        ));
        assert_eq!(
            p.kind,
            Kind::Choice(vec![json!("graceful"), json!("hard stop")])
        );
        assert_eq!(p.field().choices.unwrap().len(), 2);
        let p = Param::from_arg(&arg("$.string()", None));
        assert_eq!((p.kind.clone(), p.required), (Kind::Text, false));
        let p = Param::from_arg(&arg("len($) > 2", None));
        assert_eq!(p.kind, Kind::Any);
    }

    #[test]
    fn a_default_makes_a_field_optional_and_fills_it() {
        let p = Param::from_arg(&arg("$.int().notNull()", Some(Data::Int(3))));
        assert!(!p.required);
        assert_eq!(p.field().initial, json!(3));
        assert_eq!(p.read(Some("")), Ok(None));
    }

    #[test]
    fn posted_text_is_checked_and_typed() {
        let p = Param::from_arg(&arg("$.int().notNull().check($ >= 2 and $ < 5)", None));
        assert_eq!(p.read(Some("3")), Ok(Some(json!(3))));
        assert_eq!(p.read(Some("")), Err("This field is required.".into()));
        assert_eq!(p.read(Some("x")), Err("'x' is not a whole number.".into()));
        assert_eq!(
            p.read(Some("1")),
            Err("The value must be at least 2.".into())
        );
        assert_eq!(
            p.read(Some("5")),
            Err("The value must be at most 4.".into())
        );
        let p = Param::from_arg(&arg("$.string().check($ in [a, b])", None));
        assert_eq!(p.read(Some("b")), Ok(Some(json!("b"))));
        assert!(p.read(Some("c")).is_err());
        let p = Param::from_arg(&arg("$.bool()", None));
        assert_eq!(p.read(None), Ok(Some(json!(false))));
        assert_eq!(p.read(Some("true")), Ok(Some(json!(true))));
        let p = Param::from_arg(&arg("$", None));
        assert_eq!(p.read(Some("{\"a\": 1}")), Ok(Some(json!({"a": 1}))));
        assert_eq!(p.read(Some("plain")), Ok(Some(json!("plain"))));
    }

    #[test]
    fn list_contracts_take_one_item_per_line() {
        let a = ArgDef {
            contract: Some(Data::List(
                vec![Data::Expr(
                    Expr::parse("$.int()", Default::default()).expect("parses"),
                )],
                Default::default(),
            )),
            ..arg("$", None)
        };
        let p = Param::from_arg(&a);
        assert_eq!(p.kind, Kind::List(Box::new(Kind::Integer)));
        assert_eq!(p.read(Some("1\n\n2\n")), Ok(Some(json!([1, 2]))));
        assert!(p.read(Some("1\nx")).is_err());
    }
}
