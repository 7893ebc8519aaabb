//! The bundled TOSCA 1.1 normative types.
//!
//! They are read and checked against the grammar once per [`crate::Checker`];
//! each validation registers the same text in its own source map and copies
//! the type definitions it needs, their spans moved to that file.

use crate::hooks::ToscaHooks;
use std::sync::Arc;
use vetro_diag::{FileId, SourceMap};
use vetro_kwalify::Grammar;
use vetro_yaml::{LoadOptions, Node};

/// Normative type definitions written from the TOSCA 1.1 specification.
pub const NORMATIVE_TYPES: &str = include_str!("../data/normative_types.yaml");

const NAME: &str = "<bundled normative types>";

/// The normative types as a service template document, short forms expanded
/// by the grammar (`None` if the bundled file does not load; see the test).
pub struct Normative {
    doc: Option<Node>,
    /// The text, shared by every source map it is registered in.
    text: Arc<str>,
}

/// The document with the number of grammar problems it has.
fn read(grammar: &Grammar) -> (Option<Node>, usize) {
    let mut sources = SourceMap::new();
    let file = sources.add(NAME, NORMATIVE_TYPES);
    let Some(mut doc) = vetro_yaml::load_str(&sources, file, &LoadOptions::default())
        .ok()
        .and_then(|mut docs| docs.pop())
    else {
        return (None, 1);
    };
    let problems = grammar.validate(&mut doc, &mut ToscaHooks).len();
    (Some(doc), problems)
}

impl Normative {
    pub fn load(grammar: &Grammar) -> Normative {
        Normative {
            doc: read(grammar).0,
            text: Arc::from(NORMATIVE_TYPES),
        }
    }

    /// The document; its spans point at file 0 until moved.
    pub fn document(&self) -> Option<&Node> {
        self.doc.as_ref()
    }

    /// Register the text in `sources` for one validation.
    pub fn register(&self, sources: &mut SourceMap) -> FileId {
        sources.add(NAME, self.text.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_types_pass_the_grammar() {
        let mut sources = SourceMap::new();
        let g = Grammar::load("g", crate::BUNDLED_GRAMMAR, &mut sources).unwrap();
        let (doc, problems) = read(&g);
        assert!(doc.is_some());
        assert_eq!(problems, 0);
        let normative = Normative::load(&g);
        let mut sources = SourceMap::new();
        sources.add("first", "a: 1\n");
        let file = normative.register(&mut sources);
        assert_eq!(file, FileId(1));
        assert_eq!(sources.name(file), NAME);
        assert!(normative.document().is_some());
    }
}
