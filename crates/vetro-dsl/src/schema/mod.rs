//! Class schemas, as Murano's `GET /v1/schemas/{class}` answered them: a
//! JSON Schema (draft 4) of a class's input properties (`In`, `InOut`,
//! inherited ones too) built from their contracts, with UI hints from their
//! `Meta:`, and one of each model builder's arguments (a static public
//! method marked `io.murano.metadata.ModelBuilder`). The answer maps `""`
//! to the class's schema and each builder's name to its schema.

mod contract;
mod meta;

use contract::translate;

use crate::runtime::ClassSource;
use crate::syntax::class::{ClassDef, PropUsage};
use crate::syntax::data::Data;
use crate::syntax::namespaces::Namespaces;
use serde_json::{json, Map, Value as Json};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// The classes a schema is built from (a library's class source).
pub struct Classes<'a> {
    source: &'a ClassSource,
}

impl<'a> Classes<'a> {
    /// The classes of `source`.
    pub fn new(source: &'a ClassSource) -> Classes<'a> {
        Classes { source }
    }

    fn get(&self, name: &str) -> Option<&'a Arc<ClassDef>> {
        self.source.defs.get(name).map(|(c, _)| c)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
/// Why no schema could be made.
pub enum SchemaError {
    #[error("Class with name {0} is not found")]
    /// No class of that name is loaded.
    NoClassFound(String),
}

/// Constant data as JSON; an expression is given as its source text.
fn data_json(d: &Data) -> Json {
    match d {
        Data::Null => Json::Null,
        Data::Bool(b) => json!(b),
        Data::Int(i) => json!(i),
        Data::BigInt(b) => json!(b.to_string()),
        Data::Float(f) => json!(f),
        Data::Str(s) => json!(&**s),
        Data::Expr(e) => json!(&*e.text),
        Data::List(items, _) => Json::Array(items.iter().map(data_json).collect()),
        Data::Map(entries, _) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = k
                        .key_text()
                        .map_or_else(|| data_json(k).to_string(), str::to_string);
                    (key, data_json(v))
                })
                .collect(),
        ),
    }
}

/// The class and its ancestors, nearest first, with their distance from
/// the class (the shortest when a class is reached twice).
fn hierarchy<'a>(
    root: &'a Arc<ClassDef>,
    classes: &Classes<'a>,
) -> Vec<(&'a Arc<ClassDef>, usize)> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut todo = VecDeque::from([(root, 0usize)]);
    while let Some((c, w)) = todo.pop_front() {
        if !seen.insert(c.name.as_str()) {
            continue;
        }
        out.push((c, w));
        for p in &c.extends {
            if let Some(pc) = classes.get(p) {
                todo.push_back((pc, w + 1));
            }
        }
    }
    out
}

/// One property or argument: contract, default and meta, where declared.
struct Input<'a> {
    contract: Option<&'a Data>,
    default: Option<&'a Data>,
    meta: &'a Data,
    ns: &'a Namespaces,
    declared_in: &'a str,
}

fn input_schema(i: &Input, classes: &Classes, weights: &HashMap<String, usize>) -> Json {
    let mut schema = match i.contract.map(|c| translate(c, i.ns)) {
        Some(Json::Object(m)) => m,
        _ => Map::new(),
    };
    if let Some(d) = i.default {
        schema.insert("default".into(), data_json(d));
    }
    let items = meta::items(i.meta, i.ns, i.declared_in);
    schema.extend(meta::ui_hints(&items, classes, weights));
    Json::Object(schema)
}

fn entity_schema(
    inputs: Vec<(String, Input)>,
    own_meta: &[meta::MetaItem],
    section_meta: &[meta::MetaItem],
    classes: &Classes,
    weights: &HashMap<String, usize>,
) -> Json {
    let properties: Map<String, Json> = inputs
        .iter()
        .map(|(n, i)| (n.clone(), input_schema(i, classes, weights)))
        .collect();
    let mut schema = Map::new();
    schema.insert(
        "$schema".into(),
        json!("http://json-schema.org/draft-04/schema#"),
    );
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Json::Object(properties));
    schema.insert("additionalProperties".into(), json!(false));
    schema.insert(
        "formSections".into(),
        Json::Object(meta::sections(section_meta, classes, weights)),
    );
    schema.extend(meta::ui_hints(own_meta, classes, weights));
    Json::Object(schema)
}

/// The schema of class `class` and of its model builders named in
/// `methods` (none named: the class and every builder; named: those of
/// them that are builders, without the class).
pub fn generate(classes: &Classes, class: &str, methods: &[String]) -> Result<Json, SchemaError> {
    let root = classes
        .get(class)
        .ok_or_else(|| SchemaError::NoClassFound(class.to_string()))?;
    let chain = hierarchy(root, classes);
    let weights: HashMap<String, usize> = chain.iter().map(|(c, w)| (c.name.clone(), *w)).collect();
    let mut out = Map::new();
    if methods.is_empty() {
        out.insert("".into(), class_schema(&chain, classes, &weights));
    }
    let mut done = HashSet::new();
    for (c, _) in &chain {
        for (name, m) in &c.methods {
            if !done.insert(name.as_str()) {
                continue; // the nearest definition stands
            }
            if !methods.is_empty() && !methods.contains(name) {
                continue;
            }
            let items = meta::items(&m.meta, &c.namespaces, &c.name);
            if !(m.is_static() && m.public && meta::is_model_builder(&items, classes)) {
                continue;
            }
            let inputs = m
                .args
                .iter()
                .map(|a| {
                    let input = Input {
                        contract: a.contract.as_ref(),
                        default: a.default.as_ref(),
                        meta: &a.meta,
                        ns: &c.namespaces,
                        declared_in: &c.name,
                    };
                    (a.name.clone(), input)
                })
                .collect();
            out.insert(
                name.clone(),
                entity_schema(inputs, &items, &items, classes, &weights),
            );
        }
    }
    Ok(Json::Object(out))
}

fn class_schema(
    chain: &[(&Arc<ClassDef>, usize)],
    classes: &Classes,
    weights: &HashMap<String, usize>,
) -> Json {
    let mut inputs: Vec<(String, Input)> = Vec::new();
    for (c, _) in chain {
        for (name, p) in &c.properties {
            if inputs.iter().any(|(n, _)| n == name) {
                continue; // the nearest definition stands
            }
            if !matches!(p.usage, PropUsage::In | PropUsage::InOut) {
                // Still hides a parent's input of that name.
                inputs.push((name.clone(), hidden_input(&c.namespaces)));
                continue;
            }
            let input = Input {
                contract: Some(&p.contract),
                default: p.default.as_ref(),
                meta: &p.meta,
                ns: &c.namespaces,
                declared_in: &c.name,
            };
            inputs.push((name.clone(), input));
        }
    }
    inputs.retain(|(_, i)| !i.declared_in.is_empty());
    let (root, _) = chain[0];
    let own = meta::items(&root.meta, &root.namespaces, &root.name);
    // Sections come from the whole hierarchy (the meta class is inherited).
    let all: Vec<meta::MetaItem> = chain
        .iter()
        .flat_map(|(c, _)| meta::items(&c.meta, &c.namespaces, &c.name))
        .collect();
    entity_schema(inputs, &own, &all, classes, weights)
}

/// A placeholder for a property that is not an input; dropped before output.
fn hidden_input(ns: &Namespaces) -> Input<'_> {
    const NONE: &Data = &Data::Null;
    Input {
        contract: None,
        default: None,
        meta: NONE,
        ns,
        declared_in: "",
    }
}

#[cfg(test)]
mod tests;
