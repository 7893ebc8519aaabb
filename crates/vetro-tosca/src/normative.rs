//! The bundled TOSCA 1.1 normative types.

use crate::hooks::ToscaHooks;
use vetro_diag::SourceMap;
use vetro_kwalify::Grammar;
use vetro_yaml::{LoadOptions, Node};

/// Normative type definitions written from the TOSCA 1.1 specification.
pub const NORMATIVE_TYPES: &str = include_str!("../data/normative_types.yaml");

/// The normative types as a service template document, short forms expanded.
/// Returns the grammar problems too (none for the bundled file; see the test).
pub fn load(grammar: &Grammar, sources: &mut SourceMap) -> (Option<Node>, usize) {
    let file = sources.add("<bundled normative types>", NORMATIVE_TYPES);
    let Ok(mut docs) = vetro_yaml::load_str(sources, file, &LoadOptions::default()) else {
        return (None, 1);
    };
    let Some(mut doc) = docs.pop() else {
        return (None, 1);
    };
    let problems = grammar.validate(&mut doc, &mut ToscaHooks);
    (Some(doc), problems.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_types_pass_the_grammar() {
        let mut sources = SourceMap::new();
        let g = Grammar::load("g", crate::BUNDLED_GRAMMAR, &mut sources).unwrap();
        let (doc, problems) = load(&g, &mut sources);
        assert!(doc.is_some());
        assert_eq!(problems, 0);
    }
}
