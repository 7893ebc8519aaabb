//! A custom operator table: the reference's `YaqlFactory.operators` list
//! (operators in precedence groups, tightest first), for hosts that add
//! operators of their own. Without one the parser uses its built-in table.

use std::sync::Arc;

/// How an operator takes its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixity {
    Prefix,
    Suffix,
    Left,
    Right,
}

/// One operator of a table: its symbol (punctuation or a word), fixity and
/// precedence group (0 binds tightest), and an alias naming the function
/// (`*alias`) instead of `#operator_<symbol>` / `#unary_operator_<symbol>`.
#[derive(Clone, Debug)]
pub struct OperatorSpec {
    pub symbol: String,
    pub fixity: Fixity,
    pub group: usize,
    pub alias: Option<String>,
}

/// A resolved operator: binding power and the function it calls.
#[derive(Clone, Debug)]
pub(crate) struct OpDef {
    pub bp: u16,
    pub function: Arc<str>,
}

/// The operators the parser knows, with binding powers derived from the groups.
#[derive(Clone, Debug)]
pub struct OperatorTable {
    /// `(symbol, prefix, suffix, binary (with right associativity))`.
    entries: Vec<Entry>,
    /// Symbols made of punctuation, longest first (the lexer tries them in order).
    symbols: Vec<Arc<str>>,
    /// The binding power of `[...]` indexing and `(...)` delegate calls.
    indexer_bp: u16,
    /// The `name => value` operator of named arguments, if any.
    keyword: Option<Arc<str>>,
}

#[derive(Clone, Debug)]
struct Entry {
    symbol: Arc<str>,
    prefix: Option<OpDef>,
    suffix: Option<OpDef>,
    binary: Option<(OpDef, bool)>,
}

/// Symbols with a meaning of their own in the grammar rather than a function.
const STRUCTURAL: [&str; 2] = ["[]", "{}"];

impl OperatorTable {
    /// Build a table. Fails with the offending symbol when a symbol has two
    /// operators of the same arity or cannot be lexed (empty, with spaces).
    pub fn new(
        specs: &[OperatorSpec],
        keyword: Option<&str>,
    ) -> std::result::Result<OperatorTable, String> {
        let groups = specs.iter().map(|s| s.group).max().map_or(1, |g| g + 1);
        let bp_of = |group: usize| -> u16 { 10 * (groups - group.min(groups - 1)) as u16 + 10 };
        let mut entries: Vec<Entry> = Vec::new();
        let mut indexer_bp = bp_of(groups - 1);
        for spec in specs {
            let invalid = || spec.symbol.clone();
            if spec.symbol == "[]" {
                indexer_bp = bp_of(spec.group);
            }
            if STRUCTURAL.contains(&spec.symbol.as_str()) {
                continue;
            }
            if spec.symbol.is_empty() || spec.symbol.contains(char::is_whitespace) {
                return Err(invalid());
            }
            let i = match entries.iter().position(|e| *e.symbol == *spec.symbol) {
                Some(i) => i,
                None => {
                    entries.push(Entry {
                        symbol: Arc::from(spec.symbol.as_str()),
                        prefix: None,
                        suffix: None,
                        binary: None,
                    });
                    entries.len() - 1
                }
            };
            let e = &mut entries[i];
            let function = |unary: bool| -> Arc<str> {
                match (&spec.alias, unary) {
                    (Some(a), _) => Arc::from(format!("*{a}")),
                    (None, true) => Arc::from(format!("#unary_operator_{}", spec.symbol)),
                    (None, false) => Arc::from(format!("#operator_{}", spec.symbol)),
                }
            };
            let bp = bp_of(spec.group);
            let unary = matches!(spec.fixity, Fixity::Prefix | Fixity::Suffix);
            if unary && (e.prefix.is_some() || e.suffix.is_some()) || !unary && e.binary.is_some() {
                return Err(invalid());
            }
            let def = OpDef {
                bp,
                function: function(unary),
            };
            match spec.fixity {
                Fixity::Prefix => e.prefix = Some(def),
                Fixity::Suffix => e.suffix = Some(def),
                Fixity::Left => e.binary = Some((def, false)),
                Fixity::Right => e.binary = Some((def, true)),
            }
        }
        let mut symbols: Vec<Arc<str>> = entries
            .iter()
            .map(|e| e.symbol.clone())
            .chain(keyword.map(Arc::from))
            // words are lexed as words, then looked up (`is_word_operator`)
            .filter(|s| !s.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
            .collect();
        symbols.sort_by_key(|s| std::cmp::Reverse(s.len()));
        symbols.dedup();
        Ok(OperatorTable {
            entries,
            symbols,
            indexer_bp,
            keyword: keyword.map(Arc::from),
        })
    }

    fn entry(&self, symbol: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| &*e.symbol == symbol)
    }

    /// Whether the word is an operator of this table.
    pub(crate) fn is_word_operator(&self, word: &str) -> bool {
        self.entry(word).is_some() || self.keyword.as_deref() == Some(word)
    }

    /// The longest punctuation operator `rest` starts with.
    pub(crate) fn match_symbol<'a>(&self, rest: &'a str) -> Option<&'a str> {
        self.symbols
            .iter()
            .find(|s| rest.starts_with(&***s))
            .map(|s| &rest[..s.len()])
    }

    pub(crate) fn binary(&self, symbol: &str) -> Option<&(OpDef, bool)> {
        self.entry(symbol)?.binary.as_ref()
    }

    pub(crate) fn prefix(&self, symbol: &str) -> Option<&OpDef> {
        self.entry(symbol)?.prefix.as_ref()
    }

    pub(crate) fn suffix(&self, symbol: &str) -> Option<&OpDef> {
        self.entry(symbol)?.suffix.as_ref()
    }

    pub(crate) fn indexer_bp(&self) -> u16 {
        self.indexer_bp
    }

    pub(crate) fn keyword(&self) -> Option<&str> {
        self.keyword.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{parse, parse_with_operators, Arg, Expr, ExprKind, ParserOptions};

    fn spec(symbol: &str, fixity: Fixity, group: usize) -> OperatorSpec {
        OperatorSpec {
            symbol: symbol.into(),
            fixity,
            group,
            alias: None,
        }
    }

    /// The built-in operators as groups, tightest first.
    fn standard(extra: &[OperatorSpec]) -> Vec<OperatorSpec> {
        use Fixity::*;
        let groups: [&[(&str, Fixity)]; 11] = [
            &[(".", Left), ("?.", Left)],
            &[("[]", Left), ("{}", Left)],
            &[("+", Prefix), ("-", Prefix)],
            &[("=~", Left), ("!~", Left)],
            &[("*", Left), ("/", Left), ("mod", Left)],
            &[("+", Left), ("-", Left)],
            &[
                (">", Left),
                ("<", Left),
                ("=", Left),
                ("!=", Left),
                ("in", Left),
            ],
            &[("not", Prefix)],
            &[("and", Left)],
            &[("or", Left)],
            &[("->", Right)],
        ];
        let mut out: Vec<OperatorSpec> = groups
            .iter()
            .enumerate()
            .flat_map(|(g, ops)| ops.iter().map(move |(s, f)| spec(s, *f, 2 * g + 1)))
            .map(|mut s| {
                s.alias = match s.symbol.as_str() {
                    "=" => Some("equal".into()),
                    "!=" => Some("not_equal".into()),
                    _ => None,
                };
                s
            })
            .collect();
        out.extend(extra.iter().cloned());
        out
    }

    /// The expression as nested calls: `name(args)`.
    fn shape(e: &Expr) -> String {
        let args = |args: &[Arg]| {
            args.iter()
                .map(|a| match a {
                    Arg::Pos(e) => shape(e),
                    Arg::Named(k, v) => format!("{}=>{}", shape(k), shape(v)),
                    Arg::Omitted => "_".into(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        match &e.kind {
            ExprKind::Const(l) => format!("{l:?}"),
            ExprKind::Keyword(k) | ExprKind::Var(k) => k.to_string(),
            ExprKind::Call { name, args: a, .. } => format!("{name}({})", args(a)),
            ExprKind::Method { recv, name, .. } => format!("{}.{name}()", shape(recv)),
            ExprKind::Dot { recv, rhs, .. } => format!("{}.{}", shape(recv), shape(rhs)),
            ExprKind::Wrap(e) => shape(e),
        }
    }

    fn parse_table(src: &str, table: &OperatorTable) -> String {
        shape(&parse_with_operators(src, ParserOptions::default(), table).unwrap())
    }

    #[test]
    fn the_standard_table_parses_like_the_builtin_grammar() {
        let table = OperatorTable::new(&standard(&[]), Some("=>")).unwrap();
        for src in [
            "$.a[0] + -2 * 3 mod 4",
            "not $a and $b or $c = 1 -> $x",
            "f(2 + 3, a => 1).where($ > 1)",
            "{a => [1, 2]}.a[1]",
        ] {
            let builtin = shape(&parse(src, ParserOptions::default()).unwrap());
            assert_eq!(parse_table(src, &table), builtin, "{src}");
        }
    }

    #[test]
    fn custom_operators_take_their_group_and_fixity() {
        let table = OperatorTable::new(
            &standard(&[
                spec("<>", Fixity::Left, 10), // between `*` and `+`
                spec("~", Fixity::Prefix, 0),
                spec("!", Fixity::Suffix, 4),
                OperatorSpec {
                    alias: Some("xor".into()),
                    ..spec("xor", Fixity::Right, 18)
                },
            ]),
            Some("=>"),
        )
        .unwrap();
        assert_eq!(
            parse_table("1 + 2 <> 3", &table),
            "#operator_+(Int(1), #operator_<>(Int(2), Int(3)))"
        );
        assert_eq!(parse_table("a xor b xor c", &table), "*xor(a, *xor(b, c))");
        assert_eq!(parse_table("~$x", &table), "#unary_operator_~(x)");
        assert_eq!(
            parse_table("3! * 2", &table),
            "#operator_*(#unary_operator_!(Int(3)), Int(2))"
        );
        // `<>` binds tighter than `<` followed by `>`
        assert!(parse("1 <> 2", ParserOptions::default()).is_err());
    }

    #[test]
    fn a_symbol_twice_with_the_same_arity_is_refused() {
        let specs = standard(&[spec("*", Fixity::Right, 0)]);
        assert_eq!(OperatorTable::new(&specs, None).unwrap_err(), "*");
        assert!(OperatorTable::new(&[spec("a b", Fixity::Left, 0)], None).is_err());
    }
}
