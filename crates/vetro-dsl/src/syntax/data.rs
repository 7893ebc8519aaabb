//! YAML nodes to MuranoPL template data: every scalar is either a literal or a
//! YAQL expression, decided by the loader rule of the reference (plain scalar,
//! not a plain identifier, parses as YAQL; or an explicit `!yaql` tag).
//! Expressions are parsed here, once, by the evaluator's own parser: the
//! class definition holds their syntax trees.

use crate::kind::DslKind;
use regex::Regex;
use std::sync::{Arc, OnceLock};
use vetro_diag::{Diagnostic, Span};
use vetro_yaml::{Node, NodeKind, Style};

/// One step of a path inside a document; keys print as strings, items as ints.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PathSeg {
    Key(String),
    Index(usize),
    /// The key of a mapping entry itself (the reference writes `"<key>"`).
    KeyMark,
}

pub(crate) type DocPath = Vec<PathSeg>;

/// A YAQL expression found in a class file, with its source position, its
/// syntax tree (`parsed.source` is `text`) and its compiled form for the
/// engine that runs it (made on its first evaluation, then kept).
#[derive(Clone, Debug)]
pub struct Expr {
    /// The expression's source text.
    pub text: Arc<str>,
    /// Where it is in its class file.
    pub span: Span,
    pub(crate) parsed: vetro_yaql::Expression,
    pub(crate) compiled: Compiled,
}

/// The compiled form of an expression for the first engine that ran it
/// (shared by the expression's clones).
#[derive(Clone, Default)]
pub(crate) struct Compiled(Arc<OnceLock<vetro_yaql::Expression>>);

impl Compiled {
    /// The form compiled for `engine`: the one kept, or made now and kept
    /// if none is; `None` when another engine's form is kept.
    pub(crate) fn for_engine(
        &self,
        engine: &vetro_yaql::Engine,
        parsed: &vetro_yaql::Expression,
    ) -> Option<&vetro_yaql::Expression> {
        let form = self.0.get_or_init(|| engine.compile(parsed));
        engine.compiled_for(form).then_some(form)
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Compiled"
        } else {
            "NotCompiled"
        })
    }
}

/// How MuranoPL parses YAQL (both of its engines share this parser): named
/// arguments, delegate calls, the `:` namespace operator and `is`.
const PARSER: vetro_yaql::ParserOptions = vetro_yaql::ParserOptions {
    legacy: false,
    allow_delegates: true,
    colon: true,
    is_operator: true,
};

/// Parse YAQL text as MuranoPL does.
pub(crate) fn parse_yaql(text: &str) -> Result<vetro_yaql::Expression, vetro_yaql::Error> {
    let ast = vetro_yaql::parser::parse(text, PARSER)?;
    Ok(vetro_yaql::Expression::from_tree(
        text.into(),
        Arc::new(ast),
    ))
}

impl Expr {
    /// The expression `text` at `span`, or the parser's error.
    pub fn parse(text: &str, span: Span) -> Result<Expr, vetro_yaql::Error> {
        Ok(Expr::from_parsed(parse_yaql(text)?, span))
    }

    fn from_parsed(parsed: vetro_yaql::Expression, span: Span) -> Expr {
        Expr {
            text: parsed.source.clone(),
            span,
            parsed,
            compiled: Compiled::default(),
        }
    }
}

/// Two expressions are equal when their text and place are.
impl PartialEq for Expr {
    fn eq(&self, other: &Expr) -> bool {
        self.text == other.text && self.span == other.span
    }
}

/// MuranoPL data as written in a class file.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// An integer beyond 64 bits, kept exact (as Python's YAML loader does).
    BigInt(Arc<num_bigint::BigInt>),
    /// A float.
    Float(f64),
    /// A string that is not YAQL.
    Str(Arc<str>),
    /// A YAQL expression.
    Expr(Expr),
    /// A list, with its span in the file.
    List(Vec<Data>, Span),
    /// A map (keys may be expressions), with its span in the file.
    Map(Vec<(Data, Data)>, Span),
}

impl Data {
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Data::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The expression, when this is one.
    pub fn as_expr(&self) -> Option<&Expr> {
        match self {
            Data::Expr(e) => Some(e),
            _ => None,
        }
    }

    pub(crate) fn as_map(&self) -> Option<&[(Data, Data)]> {
        match self {
            Data::Map(m, _) => Some(m),
            _ => None,
        }
    }

    /// The value under a literal string key of a map.
    pub(crate) fn get(&self, key: &str) -> Option<&Data> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The key text of a literal string, or the source text of an expression.
    pub fn key_text(&self) -> Option<&str> {
        match self {
            Data::Str(s) => Some(s),
            Data::Expr(e) => Some(&e.text),
            _ => None,
        }
    }

    pub(super) fn is_null(&self) -> bool {
        matches!(self, Data::Null)
    }
}

/// An expression with the place where it was found (for `check --expressions`).
#[derive(Clone, Debug)]
pub struct FoundExpr {
    /// The expression found.
    pub expr: Expr,
    pub(crate) path: DocPath,
}

/// Reads YAML nodes into [`Data`], recording every expression found.
#[derive(Default)]
pub(crate) struct DataReader {
    pub(crate) found: Vec<FoundExpr>,
}

fn identifier_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[\s\w\d.]*$").expect("valid regex"))
}

fn timestamp_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
        )
        .expect("valid regex")
    })
}

/// A plain, string-typed scalar's syntax tree when it is a YAQL expression
/// under the loader rule.
fn as_expression(text: &str) -> Option<vetro_yaql::Expression> {
    if identifier_re().is_match(text)
        || timestamp_re().is_match(text)
        || text == "="
        || text == "<<"
    {
        return None;
    }
    parse_yaql(text).ok()
}

impl DataReader {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn read(&mut self, node: &Node, path: &mut DocPath) -> Result<Data, Diagnostic> {
        let tag = node.tag.as_deref();
        if matches!(tag, Some("!yaql")) {
            let text = node.scalar_text().unwrap_or_default();
            let Ok(parsed) = parse_yaql(&text) else {
                return Err(Diagnostic::error(
                    DslKind::YaqlSyntax,
                    format!("cannot parse the !yaql expression {text:?}"),
                )
                .with_span(node.span)
                .with_path(path_string(path)));
            };
            return Ok(self.expr(parsed, node.span, path));
        }
        let forced_str = matches!(tag, Some("!!str") | Some("tag:yaml.org,2002:str"));
        Ok(match &node.kind {
            NodeKind::Null => Data::Null,
            NodeKind::Bool(b) => Data::Bool(*b),
            NodeKind::Int(i) => Data::Int(*i),
            // The loader has bounded the digits.
            NodeKind::BigInt(s) => match vetro_pycompat::int::parse_decimal(s) {
                Some(b) => Data::BigInt(Arc::new(b)),
                None => Data::Float(s.parse().unwrap_or(f64::NAN)),
            },
            NodeKind::Float(f) => Data::Float(*f),
            NodeKind::Str(s) => {
                let parsed = (node.style == Style::Plain && !forced_str && tag.is_none())
                    .then(|| as_expression(s))
                    .flatten();
                match parsed {
                    Some(parsed) => self.expr(parsed, node.span, path),
                    None => Data::Str(s.as_str().into()),
                }
            }
            NodeKind::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    path.push(PathSeg::Index(i));
                    let r = self.read(item, path);
                    path.pop();
                    out.push(r?);
                }
                Data::List(out, node.span)
            }
            NodeKind::Map(m) => {
                let mut out = Vec::with_capacity(m.len());
                for (k, v) in m.iter() {
                    path.push(PathSeg::KeyMark);
                    let key = self.read(k, path);
                    path.pop();
                    let key = key?;
                    let seg = k.scalar_text().unwrap_or_default();
                    path.push(PathSeg::Key(seg));
                    let value = self.read(v, path);
                    path.pop();
                    out.push((key, value?));
                }
                Data::Map(out, node.span)
            }
        })
    }

    fn expr(&mut self, parsed: vetro_yaql::Expression, span: Span, path: &DocPath) -> Data {
        let expr = Expr::from_parsed(parsed, span);
        self.found.push(FoundExpr {
            expr: expr.clone(),
            path: path.clone(),
        });
        Data::Expr(expr)
    }
}

/// `Methods/deploy/Body/3` form of a document path.
fn path_string(path: &DocPath) -> String {
    path.iter()
        .map(|s| match s {
            PathSeg::Key(k) => k.clone(),
            PathSeg::Index(i) => i.to_string(),
            PathSeg::KeyMark => "<key>".to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    fn is_expression(text: &str) -> bool {
        super::as_expression(text).is_some()
    }

    #[test]
    fn classifies_scalars_like_the_reference() {
        assert!(is_expression("$x"));
        assert!(is_expression("a-b"));
        assert!(is_expression(":Foo"));
        assert!(!is_expression("abc"));
        assert!(!is_expression("hello world"));
        assert!(!is_expression("Foo.Bar"));
        assert!(!is_expression("a b c("));
        assert!(!is_expression("2020-01-01"));
        assert!(!is_expression("https://example.org/x"));
        assert!(!is_expression("$x +"));
        assert!(!is_expression("'open"));
        assert!(is_expression("$.x.where($ > 1).select([$, {a => 1}])"));
        assert!(is_expression("std:Application"));
        assert!(is_expression("not $.getAttr(deployed, false)"));
    }

    #[test]
    fn expressions_hold_their_tree() {
        let e = super::Expr::parse("$a + 1", Default::default()).expect("parses");
        assert_eq!(&*e.parsed.source, "$a + 1");
        assert!(matches!(
            &e.parsed.ast.kind,
            vetro_yaql::parser::ExprKind::Call { name, .. } if &**name == "#operator_+"
        ));
    }
}
