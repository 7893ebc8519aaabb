//! The statements of Congress's policy language and their canonical text form
//! (the reference's `str()`).

use std::fmt;
use vetro_pycompat::repr::float_repr;

/// A term: a variable or a constant.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Var(String),
    Int(i64),
    Float(f64),
    /// String contents as written between the quotes (escapes kept).
    Str(String),
}

/// A column named in a literal: `id=x` or `2=y`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ColRef {
    Name(String),
    Num(usize),
}

impl fmt::Display for ColRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColRef::Name(n) => f.write_str(n),
            ColRef::Num(n) => write!(f, "{n}"),
        }
    }
}

/// Where a literal or an error is in the policy text: the workspace's span,
/// counted from the text's start (its file is [`vetro_diag::FileId`]'s
/// default until the caller that read the file sets it).
pub use vetro_diag::Span;

/// A possibly negated, possibly modal atom `not execute[nova:p+(x, 1)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Literal {
    pub negated: bool,
    pub modal: Option<String>,
    /// The policy named before the first `:`.
    pub module: Option<String>,
    /// The table name, with a trailing `+`/`-` for updates.
    pub table: String,
    pub args: Vec<Term>,
    pub named: Vec<(ColRef, Term)>,
    pub span: Span,
}

impl Literal {
    /// `module:table` or `table`.
    pub fn tablename(&self) -> String {
        match &self.module {
            Some(m) => format!("{m}:{}", self.table),
            None => self.table.clone(),
        }
    }

    pub fn is_update(&self) -> bool {
        self.table.ends_with('+') || self.table.ends_with('-')
    }

    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.args
            .iter()
            .chain(self.named.iter().map(|(_, t)| t))
            .filter_map(|t| match t {
                Term::Var(v) => Some(v.as_str()),
                _ => None,
            })
    }

    pub fn is_ground(&self) -> bool {
        self.variables().next().is_none()
    }
}

/// A rule `h1, h2 :- b1, not b2`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub heads: Vec<Literal>,
    pub body: Vec<Literal>,
}

impl Rule {
    /// A hash that equal rules share (floats count by kind only, since
    /// `0.0 == -0.0`), for finding an equal rule without comparing to all.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let term = |t: &Term, h: &mut std::collections::hash_map::DefaultHasher| match t {
            Term::Var(v) => (0u8, v).hash(h),
            Term::Int(i) => (1u8, i).hash(h),
            Term::Float(_) => 2u8.hash(h),
            Term::Str(s) => (3u8, s).hash(h),
        };
        for (part, lits) in [(0u8, &self.heads), (1u8, &self.body)] {
            part.hash(&mut h);
            for lit in lits {
                (lit.negated, &lit.modal, &lit.module, &lit.table).hash(&mut h);
                lit.args.iter().for_each(|t| term(t, &mut h));
                for (c, t) in &lit.named {
                    c.hash(&mut h);
                    term(t, &mut h);
                }
            }
        }
        h.finish()
    }
}

/// One statement of a policy text.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    Fact(Literal),
    Rule(Rule),
    /// `insert[rule]` / `delete[rule; "policy"]`.
    Event {
        insert: bool,
        rule: Rule,
        target: Option<String>,
    },
}

impl Statement {
    /// The literals of the head(s).
    pub fn heads(&self) -> Vec<&Literal> {
        match self {
            Statement::Fact(l) => vec![l],
            Statement::Rule(r) | Statement::Event { rule: r, .. } => r.heads.iter().collect(),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(v) => f.write_str(v),
            Term::Int(i) => write!(f, "{i}"),
            Term::Float(x) => f.write_str(&float_repr(*x)),
            Term::Str(s) => write!(f, "\"{s}\""),
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            f.write_str("not ")?;
        }
        if let Some(m) = &self.modal {
            write!(f, "{m}[")?;
        }
        write!(f, "{}(", self.tablename())?;
        let pos: Vec<String> = self.args.iter().map(|t| t.to_string()).collect();
        let mut named: Vec<(String, String)> = self
            .named
            .iter()
            .map(|(c, t)| (c.to_string(), t.to_string()))
            .collect();
        named.sort();
        let named: Vec<String> = named.into_iter().map(|(c, t)| format!("{c}={t}")).collect();
        let p = pos.join(", ");
        let n = named.join(", ");
        match (p.is_empty(), n.is_empty()) {
            (false, false) => write!(f, "{p},{n}")?,
            (false, true) => f.write_str(&p)?,
            (true, _) => f.write_str(&n)?,
        }
        f.write_str(")")?;
        if self.modal.is_some() {
            f.write_str("]")?;
        }
        Ok(())
    }
}

fn join(lits: &[Literal]) -> String {
    lits.iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} :- {}", join(&self.heads), join(&self.body))
    }
}

impl fmt::Display for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Fact(l) => write!(f, "{l}"),
            Statement::Rule(r) => write!(f, "{r}"),
            Statement::Event {
                insert,
                rule,
                target,
            } => {
                let op = if *insert { "insert" } else { "delete" };
                write!(f, "{op}[{rule}]")?;
                if let Some(t) = target {
                    write!(f, " for {t}")?;
                }
                Ok(())
            }
        }
    }
}
