//! `unreachable-code`: statements of a list that follow a `Return`, `Throw`,
//! `Rethrow`, `Break` or `Continue` of the same list never run.

use super::walk::each_block;
use crate::kind::DslKind;
use crate::syntax::body::StmtKind;
use crate::syntax::ClassDef;
use vetro_diag::Diagnostic;

fn keyword(kind: &StmtKind) -> Option<&'static str> {
    Some(match kind {
        StmtKind::Return(_) => "Return",
        StmtKind::Throw { .. } => "Throw",
        StmtKind::Rethrow => "Rethrow",
        StmtKind::Break => "Break",
        StmtKind::Continue => "Continue",
        _ => return None,
    })
}

/// One warning per statement list, at its first unreachable statement.
pub(super) fn unreachable_code(class: &ClassDef) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for m in class.methods.values() {
        each_block(&m.body, &mut |block| {
            let Some((i, word)) = block
                .iter()
                .enumerate()
                .find_map(|(i, s)| keyword(&s.kind).map(|w| (i, w)))
            else {
                return;
            };
            let Some(next) = block.get(i + 1) else {
                return;
            };
            let left = block.len() - i - 1;
            out.push(
                Diagnostic::warning(
                    DslKind::UnreachableCode,
                    format!(
                        "unreachable code: {left} statement(s) after {word} in method {}",
                        m.name
                    ),
                )
                .with_span(next.span)
                .with_related(block[i].span, format!("{word} is here"))
                .with_path(format!("Methods/{}", m.name)),
            );
        });
    }
    out
}
