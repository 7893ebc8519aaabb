//! Semantic checks: the type catalog, type definitions and the topology.

mod functions;
mod props;
mod topo;
mod topology;
mod types;

use crate::catalog::{Catalog, Construct, TypeDef};
use crate::document::FileRec;
use crate::kind::ToscaKind;
use crate::normative::Normative;
use vetro_diag::{Diagnostic, Kind, SourceMap, Span};
use vetro_kwalify::escape_segment;
use vetro_yaml::Node;

/// Problems of one file, with path helpers.
pub(crate) struct Cx<'a> {
    pub cat: &'a Catalog,
    pub out: Vec<Diagnostic>,
}

impl Cx<'_> {
    pub fn err(&mut self, kind: impl Into<Kind>, path: &str, span: Span, message: String) {
        self.out.push(
            Diagnostic::error(kind, message)
                .with_span(span)
                .with_path(path),
        );
    }
}

/// `base/seg` with the segment escaped.
pub(crate) fn join(base: &str, seg: &str) -> String {
    if base.is_empty() {
        escape_segment(seg)
    } else {
        format!("{base}/{}", escape_segment(seg))
    }
}

/// Entries of a mapping-valued key, as (name, value) pairs with string names.
pub(crate) fn entries(node: Option<&Node>) -> impl Iterator<Item = (String, &Node, &Node)> {
    node.and_then(Node::as_map)
        .into_iter()
        .flat_map(|m| m.iter())
        .filter_map(|(k, v)| k.scalar_text().map(|name| (name, k, v)))
}

fn add_types(cat: &mut Catalog, doc: &Node, file: Option<usize>, problems: &mut Vec<Diagnostic>) {
    for c in Construct::ALL {
        for (name, key, def) in entries(doc.get(c.section())) {
            let existing = cat.find(c, &name);
            if let Some(first) = existing.map(|i| cat.get(i)).filter(|t| t.file.is_some()) {
                problems.push(
                    Diagnostic::error(
                        ToscaKind::DuplicateName,
                        format!("{} '{name}' is declared more than once", c.label()),
                    )
                    .with_span(key.span)
                    .with_related(first.key_span, "first declared here")
                    .with_path(join(c.section(), &name)),
                );
                continue;
            }
            let t = TypeDef {
                parent: def.get("derived_from").and_then(Node::scalar_text),
                name,
                construct: c,
                def: def.clone(),
                file,
                key_span: key.span,
                section: c.section(),
            };
            match existing {
                // A template may redefine a normative type: its definition wins.
                Some(i) => cat.replace(i, t),
                None => {
                    let _ = cat.add(t);
                }
            }
        }
    }
}

/// Build the catalog from the normative types and every loaded file, then
/// check each file. Problems are appended to the files' own lists.
pub fn run(normative: &Normative, files: &mut [FileRec], sources: &mut SourceMap) -> Catalog {
    let mut cat = Catalog::default();
    if let Some(doc) = normative.document() {
        let file = normative.register(sources);
        add_types(&mut cat, doc, None, &mut Vec::new());
        cat.move_to_file(file);
    }
    for (i, f) in files.iter_mut().enumerate() {
        if let Some(doc) = &f.doc {
            add_types(&mut cat, doc, Some(i), &mut f.problems);
            for (_, item) in crate::document::import_entries(doc) {
                for (_, _, def) in entries(Some(item)) {
                    if let Some(p) = def.get("namespace_prefix").and_then(Node::as_str) {
                        cat.add_prefix(p);
                    }
                }
            }
        }
    }
    cat.reclassify_by_parent();
    let main_accepted = files.first().is_some_and(|f| f.problems.is_empty());
    for (i, f) in files.iter_mut().enumerate() {
        let Some(doc) = &f.doc else { continue };
        // Semantic checks only run on files the grammar accepted.
        if !f.problems.is_empty() {
            continue;
        }
        let mut cx = Cx {
            cat: &cat,
            out: Vec::new(),
        };
        types::check(&mut cx, i);
        // An imported file contributes its types; its topology is not
        // instantiated, so it is not checked (as in tosca-parser).
        if i == 0 {
            topology::check(&mut cx, doc);
        }
        f.problems.extend(cx.out);
    }
    let topology = files
        .first()
        .and_then(|f| f.doc.as_ref()?.get("topology_template"));
    let targets = match topology {
        Some(t) if main_accepted => types::instantiated_requirement_targets(&cat, t),
        _ => Vec::new(),
    };
    for (file, d) in targets {
        if let Some(f) = file.and_then(|i| files.get_mut(i)) {
            f.problems.push(d);
        }
    }
    cat
}
