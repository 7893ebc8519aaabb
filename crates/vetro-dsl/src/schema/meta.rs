//! `Meta:` entries read for the schema: the UI hints Murano's generator
//! took from `io.murano.metadata.*` (title, description, help text,
//! hidden, form position and sections) and the model-builder mark. Entries
//! are read as written, with the meta class's constant defaults (and a
//! default of the form `$.other`, another property of the same entry).

use super::Classes;
use crate::syntax::data::Data;
use crate::syntax::namespaces::Namespaces;
use serde_json::{Map, Value as Json};
use std::collections::HashMap;

const MD: &str = "io.murano.metadata";

/// One meta object: its class, what it was given, and the class that
/// declared it (for the hierarchy weights of positions and sections).
#[derive(Debug)]
pub(super) struct MetaItem<'a> {
    class: String,
    given: Option<&'a Data>,
    declared_in: String,
}

impl MetaItem<'_> {
    /// A property: as given, else the meta class's default.
    fn get(&self, name: &str, classes: &Classes) -> Json {
        self.get_depth(name, classes, 0)
    }

    fn get_depth(&self, name: &str, classes: &Classes, depth: u8) -> Json {
        if let Some(v) = self.given.and_then(|g| g.get(name)) {
            return super::data_json(v);
        }
        let default = classes
            .get(&self.class)
            .and_then(|c| c.properties.get(name))
            .and_then(|p| p.default.clone());
        match default {
            Some(Data::Expr(e)) => match e.text.trim().strip_prefix("$.") {
                Some(other)
                    if depth < 4 && other.chars().all(|c| c.is_alphanumeric() || c == '_') =>
                {
                    self.get_depth(other, classes, depth + 1)
                }
                _ => Json::Null,
            },
            Some(d) => super::data_json(&d),
            None => Json::Null,
        }
    }
}

/// The entries of a `Meta:` block (a list of `Class` or `{Class: {...}}`,
/// or one mapping of them).
pub(super) fn items<'a>(meta: &'a Data, ns: &Namespaces, declared_in: &str) -> Vec<MetaItem<'a>> {
    let mut out = Vec::new();
    let mut one = |key: &'a Data, given: Option<&'a Data>| {
        if let Some(class) = key.key_text().and_then(|k| ns.resolve(k).ok()) {
            out.push(MetaItem {
                class,
                given,
                declared_in: declared_in.to_string(),
            });
        }
    };
    match meta {
        Data::List(entries, _) => {
            for e in entries {
                match e {
                    Data::Map(m, _) => m.iter().for_each(|(k, v)| one(k, Some(v))),
                    other => one(other, None),
                }
            }
        }
        Data::Map(m, _) => m.iter().for_each(|(k, v)| one(k, Some(v))),
        _ => {}
    }
    out
}

fn last<'a, 'b>(items: &'b [MetaItem<'a>], class: &str) -> Option<&'b MetaItem<'a>> {
    items.iter().rev().find(|m| m.class == class)
}

/// Whether a method's meta marks it as a model builder.
pub(super) fn is_model_builder(items: &[MetaItem], classes: &Classes) -> bool {
    last(items, &format!("{MD}.ModelBuilder"))
        .is_some_and(|m| m.get("enabled", classes) != Json::Bool(false))
}

/// Title, description, help text, visibility and form position.
pub(super) fn ui_hints(
    items: &[MetaItem],
    classes: &Classes,
    weights: &HashMap<String, usize>,
) -> Map<String, Json> {
    let mut out = Map::new();
    for (class, key, prop) in [
        ("Title", "title", "text"),
        ("Description", "description", "text"),
        ("HelpText", "helpText", "text"),
        ("forms.Hidden", "visible", "visible"),
    ] {
        if let Some(m) = last(items, &format!("{MD}.{class}")) {
            out.insert(key.into(), m.get(prop, classes));
        }
    }
    if let Some(p) = last(items, &format!("{MD}.forms.Position")) {
        out.insert("formSection".into(), p.get("section", classes));
        if let Some(index) = p.get("index", classes).as_i64() {
            out.insert(
                "formIndex".into(),
                Json::from(weighted(index, &p.declared_in, weights)),
            );
        }
    }
    out
}

/// An index made comparable across the hierarchy: a base class's index
/// sorts before a derived class's equal one.
fn weighted(index: i64, declared_in: &str, weights: &HashMap<String, usize>) -> i64 {
    let n = weights.len() as i64;
    let w = weights.get(declared_in).copied().unwrap_or(0) as i64;
    (index + 1) * n - w
}

/// The form sections (`io.murano.metadata.forms.Section`) of a class or
/// method: one per name, the nearest declaration winning (and in one class
/// the lowest index), renumbered from 0 in index order; sections without an
/// index follow, unnumbered.
pub(super) fn sections(
    items: &[MetaItem],
    classes: &Classes,
    weights: &HashMap<String, usize>,
) -> Map<String, Json> {
    let weight = |m: &MetaItem| weights.get(&m.declared_in).copied().unwrap_or(0);
    let mut chosen: Vec<&MetaItem> = Vec::new();
    for s in items
        .iter()
        .filter(|m| m.class == format!("{MD}.forms.Section"))
    {
        let name = s.get("name", classes);
        let Some(pos) = chosen.iter().position(|c| c.get("name", classes) == name) else {
            chosen.push(s);
            continue;
        };
        let ex = chosen[pos];
        let replace = match weight(ex).cmp(&weight(s)) {
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => match (
                ex.get("index", classes).as_i64(),
                s.get("index", classes).as_i64(),
            ) {
                (_, None) => false,
                (Some(old), Some(new)) => new < old,
                (None, Some(_)) => true,
            },
        };
        if replace {
            chosen[pos] = s;
        }
    }
    let mut ordered: Vec<(i64, &MetaItem)> = chosen
        .iter()
        .filter_map(|m| {
            Some((
                weighted(m.get("index", classes).as_i64()?, &m.declared_in, weights),
                *m,
            ))
        })
        .collect();
    ordered.sort_by_key(|(k, _)| *k);
    let mut out = Map::new();
    for (i, (_, m)) in ordered.iter().enumerate() {
        let mut section = Map::new();
        section.insert("title".into(), m.get("title", classes));
        section.insert("index".into(), Json::from(i));
        out.insert(name_text(m, classes), Json::Object(section));
    }
    for m in chosen.iter().filter(|m| m.get("index", classes).is_null()) {
        let mut section = Map::new();
        section.insert("title".into(), m.get("title", classes));
        out.entry(name_text(m, classes))
            .or_insert(Json::Object(section));
    }
    out
}

fn name_text(m: &MetaItem, classes: &Classes) -> String {
    match m.get("name", classes) {
        Json::String(s) => s,
        other => other.to_string(),
    }
}
