//! Checks attached to grammar rule names.

use crate::kind::ToscaKind;
use vetro_kwalify::{Hooks, InstancePath, Problem};
use vetro_yaml::{Node, NodeKind};

/// TOSCA's rule hooks: `range_definition` (occurrences).
pub struct ToscaHooks;

impl Hooks for ToscaHooks {
    fn after_rule(
        &mut self,
        name: &str,
        value: &Node,
        path: &InstancePath,
        out: &mut Vec<Problem>,
    ) {
        if name == "range_definition" {
            if let Some(message) = range_problem(value) {
                out.push(Problem {
                    kind: ToscaKind::BadRange.into(),
                    path: path.render(),
                    message,
                    span: value.span,
                    rule: name.into(),
                });
            }
        }
    }
}

fn is_number(n: &Node) -> bool {
    matches!(
        n.kind,
        NodeKind::Int(_) | NodeKind::Float(_) | NodeKind::BigInt(_)
    )
}

/// `[lower, upper]`: numeric lower, numeric or `UNBOUNDED` upper, lower <= upper.
pub fn range_problem(value: &Node) -> Option<String> {
    let items = value.as_seq()?;
    if items.len() != 2 {
        return Some(format!(
            "a range is [lower, upper]: expecting 2 elements, found {}",
            items.len()
        ));
    }
    if !is_number(&items[0]) {
        return Some("the lower bound of a range must be a number".into());
    }
    let upper_ok = is_number(&items[1]) || items[1].as_str() == Some("UNBOUNDED");
    if !upper_ok {
        return Some("the upper bound of a range must be a number or UNBOUNDED".into());
    }
    if let (Some(lo), Some(hi)) = (items[0].as_f64(), items[1].as_f64()) {
        if lo > hi {
            return Some(format!("the lower bound {lo} exceeds the upper bound {hi}"));
        }
    }
    None
}
