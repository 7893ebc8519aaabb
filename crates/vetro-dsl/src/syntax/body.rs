//! Method bodies: template data compiled into a statement tree. A block
//! construct is recognised by its exact set of keys (optional keys may be
//! absent, unknown keys make the body invalid), as the reference does.

use super::data::{Data, Expr};
use vetro_diag::Span;

pub(crate) type Block = Vec<Stmt>;

#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    pub(crate) kind: StmtKind,
    pub(crate) span: Span,
    /// Source text of the statement for stack frames (`block construct` for blocks).
    pub(crate) text: std::sync::Arc<str>,
}

#[derive(Clone, Debug)]
pub(crate) struct CatchClause {
    /// Exception names (unresolved; data so expressions are allowed). Empty = all.
    pub(crate) with: Vec<Data>,
    pub(crate) var: Option<String>,
    pub(crate) body: Block,
}

#[derive(Clone, Debug)]
pub(crate) enum StmtKind {
    /// An expression or a constant evaluated for its effects.
    Eval(Data),
    Assign {
        target: Expr,
        value: Data,
        /// When the assignment grows a local variable (`$l: $l + [$x]`).
        growth: Option<Box<super::grow::Growth>>,
    },
    Return(Data),
    If {
        cond: Data,
        then: Block,
        otherwise: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    For {
        var: String,
        source: Data,
        body: Block,
    },
    Repeat {
        count: Data,
        body: Block,
    },
    Break,
    Continue,
    Match {
        value: Data,
        cases: Vec<(Data, Block)>,
        default: Option<Block>,
    },
    Switch {
        cases: Vec<(Data, Block)>,
        default: Option<Block>,
    },
    Parallel {
        branches: Vec<Block>,
        limit: Option<Data>,
    },
    Do(Block),
    Throw {
        names: Data,
        message: Data,
        extra: Data,
        cause: Data,
    },
    Try {
        body: Block,
        catches: Vec<CatchClause>,
        otherwise: Option<Block>,
        finally: Option<Block>,
    },
    Rethrow,
}

/// Why a body did not compile.
#[derive(Clone, Debug)]
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    pub(crate) span: Span,
}

fn err<T>(message: impl Into<String>, span: Span) -> Result<T, SyntaxError> {
    Err(SyntaxError {
        message: message.into(),
        span,
    })
}

fn span_of(d: &Data, fallback: Span) -> Span {
    match d {
        Data::Expr(e) => e.span,
        Data::List(_, s) | Data::Map(_, s) => *s,
        _ => fallback,
    }
}

/// Compile a body (a list of statements or a single one).
pub(super) fn compile_block(d: &Data, at: Span) -> Result<Block, SyntaxError> {
    match d {
        Data::Null => Ok(Vec::new()),
        Data::List(items, _) => items.iter().map(|i| compile_stmt(i, at)).collect(),
        other => Ok(vec![compile_stmt(other, at)?]),
    }
}

fn stmt(kind: StmtKind, span: Span, text: String) -> Stmt {
    Stmt {
        kind,
        span,
        text: text.into(),
    }
}

/// Compile one statement.
fn compile_stmt(d: &Data, at: Span) -> Result<Stmt, SyntaxError> {
    let span = span_of(d, at);
    match d {
        Data::Map(entries, mspan) => {
            if entries.len() == 1 {
                if let Data::Expr(target) = &entries[0].0 {
                    let text = format!("{}: {}", target.text, brief(&entries[0].1));
                    return Ok(stmt(
                        StmtKind::Assign {
                            target: target.clone(),
                            value: entries[0].1.clone(),
                            growth: match &entries[0].1 {
                                Data::Expr(v) => super::grow::growth(target, v).map(Box::new),
                                _ => None,
                            },
                        },
                        target.span,
                        text,
                    ));
                }
            }
            let mut keys = Vec::with_capacity(entries.len());
            for (k, _) in entries {
                match k {
                    Data::Str(s) => keys.push(s.to_string()),
                    _ => {
                        return err(
                            "Syntax is incorrect in expression: invalid block key",
                            *mspan,
                        )
                    }
                }
            }
            let kind = construct(d, &keys, *mspan)?;
            Ok(stmt(kind, *mspan, "block construct".to_string()))
        }
        Data::Expr(e) => Ok(stmt(StmtKind::Eval(d.clone()), span, e.text.to_string())),
        Data::List(_, s) => Ok(stmt(
            StmtKind::Do(compile_block(d, *s)?),
            *s,
            "block construct".into(),
        )),
        Data::Str(s) => Ok(stmt(StmtKind::Eval(d.clone()), span, s.to_string())),
        other => Ok(stmt(StmtKind::Eval(other.clone()), span, brief(other))),
    }
}

fn brief(d: &Data) -> String {
    match d {
        Data::Expr(e) => e.text.to_string(),
        Data::Str(s) => s.to_string(),
        Data::Null => "null".into(),
        Data::Bool(b) => b.to_string(),
        Data::Int(i) => i.to_string(),
        Data::BigInt(b) => b.to_string(),
        Data::Float(f) => f.to_string(),
        Data::List(..) => "[...]".into(),
        Data::Map(..) => "{...}".into(),
    }
}

/// Checks that `keys` has every required key and only allowed ones.
fn shape(keys: &[String], required: &[&str], optional: &[&str]) -> bool {
    required.iter().all(|r| keys.iter().any(|k| k == r))
        && keys
            .iter()
            .all(|k| required.contains(&k.as_str()) || optional.contains(&k.as_str()))
}

/// The `Catch` clauses of a `Try` (`None`: a clause of the wrong shape).
fn catch_clauses(d: &Data, span: Span) -> Result<Option<Vec<CatchClause>>, SyntaxError> {
    let mut catches = Vec::new();
    let raw = match d.get("Catch") {
        None | Some(Data::Null) => Vec::new(),
        Some(Data::List(items, _)) => items.clone(),
        Some(other) => vec![other.clone()],
    };
    for c in raw {
        let Some(entries) = c.as_map() else {
            return Ok(None);
        };
        if entries
            .iter()
            .any(|(k, _)| !matches!(k.as_str(), Some("With" | "As" | "Do")))
        {
            return Ok(None);
        }
        let with = match c.get("With") {
            None | Some(Data::Null) => Vec::new(),
            Some(Data::List(items, _)) => items.clone(),
            Some(other) => vec![other.clone()],
        };
        let var = match c.get("As") {
            None | Some(Data::Null) => None,
            Some(v) => Some(
                v.key_text()
                    .unwrap_or_default()
                    .trim_start_matches('$')
                    .to_string(),
            ),
        };
        catches.push(CatchClause {
            with,
            var,
            body: compile_block(c.get("Do").unwrap_or(&Data::Null), span)?,
        });
    }
    Ok(Some(catches))
}

fn construct(d: &Data, keys: &[String], span: Span) -> Result<StmtKind, SyntaxError> {
    let get = |k: &str| d.get(k).cloned().unwrap_or(Data::Null);
    let block = |k: &str| compile_block(&get(k), span);
    let opt_block = |k: &str| -> Result<Option<Block>, SyntaxError> {
        match d.get(k) {
            Some(v) => Ok(Some(compile_block(v, span)?)),
            None => Ok(None),
        }
    };
    let bad = || {
        err(
            format!("Syntax is incorrect in expression: {}", keys.join(", ")),
            span,
        )
    };
    if shape(keys, &["Return"], &[]) {
        return Ok(StmtKind::Return(get("Return")));
    }
    if shape(keys, &["If", "Then"], &["Else"]) {
        return Ok(StmtKind::If {
            cond: get("If"),
            then: block("Then")?,
            otherwise: opt_block("Else")?,
        });
    }
    if shape(keys, &["While", "Do"], &[]) {
        let Data::Expr(cond) = get("While") else {
            return bad();
        };
        return Ok(StmtKind::While {
            cond,
            body: block("Do")?,
        });
    }
    if shape(keys, &["For", "In", "Do"], &[]) {
        let var = match get("For") {
            Data::Str(s) => s.to_string(),
            Data::Expr(e) => e.text.trim_start_matches('$').to_string(),
            _ => return bad(),
        };
        return Ok(StmtKind::For {
            var,
            source: get("In"),
            body: block("Do")?,
        });
    }
    if shape(keys, &["Repeat", "Do"], &[]) {
        return Ok(StmtKind::Repeat {
            count: get("Repeat"),
            body: block("Do")?,
        });
    }
    if shape(keys, &["Break"], &[]) || shape(keys, &["Continue"], &[]) {
        let key = keys[0].as_str();
        if !get(key).is_null() {
            return bad();
        }
        return Ok(if key == "Break" {
            StmtKind::Break
        } else {
            StmtKind::Continue
        });
    }
    if shape(keys, &["Match", "Value"], &["Default"]) {
        let Some(cases) = get("Match").as_map().map(|m| m.to_vec()) else {
            return bad();
        };
        let mut out = Vec::new();
        for (k, v) in cases {
            out.push((k, compile_block(&v, span)?));
        }
        return Ok(StmtKind::Match {
            value: get("Value"),
            cases: out,
            default: opt_block("Default")?,
        });
    }
    if shape(keys, &["Switch"], &["Default"]) {
        let Some(cases) = get("Switch").as_map().map(|m| m.to_vec()) else {
            return bad();
        };
        let mut out = Vec::new();
        for (k, v) in cases {
            out.push((k, compile_block(&v, span)?));
        }
        return Ok(StmtKind::Switch {
            cases: out,
            default: opt_block("Default")?,
        });
    }
    if shape(keys, &["Parallel"], &["Limit"]) {
        let branches = match get("Parallel") {
            Data::List(items, _) => items
                .iter()
                .map(|i| compile_block(i, span))
                .collect::<Result<Vec<_>, _>>()?,
            other => vec![compile_block(&other, span)?],
        };
        return Ok(StmtKind::Parallel {
            branches,
            limit: d.get("Limit").cloned(),
        });
    }
    if shape(keys, &["Do"], &[]) {
        return Ok(StmtKind::Do(block("Do")?));
    }
    if shape(keys, &["Throw"], &["Message", "Extra", "Cause"]) {
        return Ok(StmtKind::Throw {
            names: get("Throw"),
            message: get("Message"),
            extra: get("Extra"),
            cause: get("Cause"),
        });
    }
    if shape(keys, &["Try"], &["Catch", "Else", "Finally"]) {
        let Some(catches) = catch_clauses(d, span)? else {
            return bad();
        };
        return Ok(StmtKind::Try {
            body: block("Try")?,
            catches,
            otherwise: opt_block("Else")?,
            finally: opt_block("Finally")?,
        });
    }
    if shape(keys, &["Rethrow"], &[]) {
        return Ok(StmtKind::Rethrow);
    }
    bad()
}
