//! Decomposition of a Murano object model into the six `murano:*` tables,
//! reproducing the reference walk row for row (see FORMAT.md of the policy corpus).

pub mod classes;
pub mod pyrepr;
pub mod value;

use crate::kind::InputKind;
use std::fmt::Write as _;
use vetro_diag::Diagnostic;

pub use value::MValue;

pub use classes::{package_roots, strip_type_name, ClassHierarchy};

/// The tables of the `murano` policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    States,
    Objects,
    Properties,
    Relationships,
    Connected,
    ParentTypes,
}

impl Table {
    pub const ALL: [Table; 6] = [
        Table::States,
        Table::Objects,
        Table::Properties,
        Table::Relationships,
        Table::Connected,
        Table::ParentTypes,
    ];

    /// The table name inside the `murano` policy.
    pub fn name(self) -> &'static str {
        match self {
            Table::States => "states",
            Table::Objects => "objects",
            Table::Properties => "properties",
            Table::Relationships => "relationships",
            Table::Connected => "connected",
            Table::ParentTypes => "parent_types",
        }
    }
}

/// One decomposed row: a table and its string columns.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Row {
    pub table: Table,
    pub values: Vec<String>,
}

impl Row {
    fn new(table: Table, values: Vec<String>) -> Self {
        Row { table, values }
    }

    /// The reference text: `murano:objects+("id", "owner", "type")` (values unescaped).
    pub fn render(&self) -> String {
        let mut out =
            String::with_capacity(32 + self.values.iter().map(String::len).sum::<usize>());
        let _ = write!(out, "murano:{}+(", self.table.name());
        for (i, v) in self.values.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push('"');
            out.push_str(v);
            out.push('"');
        }
        out.push(')');
        out
    }
}

/// Options of a decomposition.
#[derive(Debug, Default, Clone)]
pub struct DecomposeOptions {
    /// Owner of the environment object; `None` prints as `None` like the reference.
    pub tenant: Option<String>,
    pub classes: ClassHierarchy,
}

/// The decomposed model.
#[derive(Debug, Default, Clone)]
pub struct Decomposition {
    pub env_id: String,
    pub rows: Vec<Row>,
}

/// Python equality of a scalar, so that a property value can be matched
/// against object ids as the reference's `value in object_ids` does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum EqKey {
    Str(String),
    Num(String),
}

fn eq_key(v: &MValue) -> Option<EqKey> {
    match v {
        MValue::Str { text, plain } => {
            if *plain && pyrepr::timestamp(text).is_some() {
                return None;
            }
            Some(EqKey::Str(text.clone()))
        }
        MValue::Bool(b) => Some(EqKey::Num(if *b { "1" } else { "0" }.into())),
        MValue::Int(i) => Some(EqKey::Num(i.to_string())),
        MValue::BigInt(s) => Some(EqKey::Num(s.clone())),
        MValue::Float(f) => {
            if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e18 {
                Some(EqKey::Num((*f as i64).to_string()))
            } else {
                Some(EqKey::Num(format!("f{f}")))
            }
        }
        _ => None,
    }
}

/// Where the walk is, as far as the `services` rule cares.
#[derive(Clone, Copy, PartialEq)]
enum PathState {
    Root,
    Applications,
    Other,
}

/// A property row before ids are known: the value's text and its equality key.
struct PendingProperty {
    obj: String,
    name: String,
    text: String,
    key: Option<EqKey>,
}

enum Pending {
    Done(Row),
    Property(PendingProperty),
}

struct Walker<'a> {
    opts: &'a DecomposeOptions,
    env_id: String,
    out: Vec<Pending>,
    ids: crate::datalog::hash::FxHashSet<EqKey>,
}

fn model_error(msg: impl Into<String>, path: &str) -> Diagnostic {
    let d = Diagnostic::error(InputKind::ObjectModel, msg);
    if path.is_empty() {
        d
    } else {
        d.with_path(path.to_string())
    }
}

type Mapping = [(MValue, MValue)];

/// The object header (`?`) of a map, if it is an object.
fn header(map: &Mapping) -> Option<&MValue> {
    map.iter()
        .find(|(k, _)| k.as_str() == Some("?"))
        .map(|(_, v)| v)
}

fn header_field<'n>(hdr: &'n MValue, field: &str, path: &str) -> Result<&'n MValue, Diagnostic> {
    let MValue::Map(_) = hdr else {
        return Err(model_error(
            format!(
                "object header `?` must be a mapping, found {}",
                hdr.type_name()
            ),
            path,
        ));
    };
    match hdr.get(field) {
        Some(v) if *v != MValue::Null => Ok(v),
        _ => Err(model_error(format!("object header has no `{field}`"), path)),
    }
}

/// The root object of a model: the model itself, or the `Objects` of a
/// deployment description (`{"Objects": {...}, "ObjectsCopy": ...}`, what
/// `vetro run --model` takes).
fn root_object(model: &MValue) -> &MValue {
    match model {
        MValue::Map(map) if header(map).is_none() => match model.get("Objects") {
            Some(objects @ MValue::Map(_)) => objects,
            _ => model,
        },
        _ => model,
    }
}

/// Decomposes an object model into rows. The model is the root object (with
/// its `?` header) or a mapping whose `Objects` is the root object.
pub fn decompose(model: &MValue, opts: &DecomposeOptions) -> Result<Decomposition, Diagnostic> {
    let model = root_object(model);
    let MValue::Map(map) = model else {
        return Err(model_error(
            format!(
                "not an object model: expected a mapping with a `?` header, found {}",
                model.type_name()
            ),
            "",
        ));
    };
    let Some(hdr) = header(map) else {
        return Err(model_error(
            "not an object model: the top-level mapping has no `?` header",
            "",
        ));
    };
    let env_id = pyrepr::py_str(header_field(hdr, "id", "?")?);
    let mut w = Walker {
        opts,
        env_id: env_id.clone(),
        out: Vec::new(),
        ids: Default::default(),
    };
    w.out.push(Pending::Done(Row::new(
        Table::States,
        vec![env_id.clone(), "pending".into()],
    )));
    let owner = opts.tenant.clone().unwrap_or_else(|| "None".to_string());
    let mut path = String::new();
    w.walk(model, &owner, PathState::Root, &mut path)?;

    let mut rows = Vec::with_capacity(w.out.len() * 2);
    let mut edges: Vec<(String, String)> = Vec::new();
    for p in w.out {
        let row = match p {
            Pending::Done(row) => row,
            Pending::Property(p) => {
                if p.key.as_ref().is_some_and(|k| w.ids.contains(k)) {
                    Row::new(Table::Relationships, vec![p.obj, p.text, p.name])
                } else {
                    Row::new(Table::Properties, vec![p.obj, p.name, p.text])
                }
            }
        };
        if row.table == Table::Relationships {
            edges.push((row.values[0].clone(), row.values[1].clone()));
        }
        rows.push(row);
    }
    for (a, b) in transitive_closure(&edges) {
        rows.push(Row::new(Table::Connected, vec![a, b]));
    }
    Ok(Decomposition { env_id, rows })
}

impl Walker<'_> {
    fn walk(
        &mut self,
        node: &MValue,
        owner: &str,
        path: PathState,
        doc_path: &mut String,
    ) -> Result<(), Diagnostic> {
        let len = doc_path.len();
        match node {
            MValue::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let _ = write!(doc_path, "/{i}");
                    self.walk(item, owner, path, doc_path)?;
                    doc_path.truncate(len);
                }
            }
            MValue::Map(map) => {
                let id = self.process_object(map, owner, path, doc_path)?;
                let owner = id.as_deref().unwrap_or(owner);
                for (k, v) in map.iter() {
                    let next = match (path, k.as_str()) {
                        (PathState::Root, Some("applications")) => PathState::Applications,
                        _ => PathState::Other,
                    };
                    if matches!(v, MValue::Map(_) | MValue::Seq(_)) {
                        let _ = write!(doc_path, "/{}", pyrepr::py_str(k));
                        self.walk(v, owner, next, doc_path)?;
                        doc_path.truncate(len);
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Emits the rows of one object; returns its id when `map` is an object.
    fn process_object(
        &mut self,
        map: &Mapping,
        owner: &str,
        path: PathState,
        doc_path: &str,
    ) -> Result<Option<String>, Diagnostic> {
        let Some(hdr) = header(map) else {
            return Ok(None);
        };
        let here = format!("{doc_path}/?");
        let id_node = header_field(hdr, "id", &here)?;
        let type_node = header_field(hdr, "type", &here)?;
        let id = pyrepr::py_str(id_node);
        if let Some(k) = eq_key(id_node) {
            self.ids.insert(k);
        }
        let full_type = pyrepr::py_str(type_node);
        let type_name = strip_type_name(&full_type).to_string();
        self.out.push(Pending::Done(Row::new(
            Table::Objects,
            vec![id.clone(), owner.to_string(), type_name.clone()],
        )));
        if path == PathState::Applications {
            self.out.push(Pending::Done(Row::new(
                Table::Relationships,
                vec![self.env_id.clone(), id.clone(), "services".into()],
            )));
        }
        self.properties(&id, map, "", true)?;
        for t in self.opts.classes.with_ancestors(&type_name) {
            self.out.push(Pending::Done(Row::new(
                Table::ParentTypes,
                vec![id.clone(), t],
            )));
        }
        Ok(Some(id))
    }

    fn properties(
        &mut self,
        obj: &str,
        map: &Mapping,
        prefix: &str,
        top: bool,
    ) -> Result<(), Diagnostic> {
        if !top {
            if let Some(hdr) = header(map) {
                let child = pyrepr::py_str(header_field(hdr, "id", prefix)?);
                let first = prefix.split('.').next().unwrap_or(prefix).to_string();
                self.out.push(Pending::Done(Row::new(
                    Table::Relationships,
                    vec![obj.to_string(), child, first],
                )));
                return Ok(());
            }
        }
        for (k, v) in map.iter() {
            if k.as_str() == Some("?") || *v == MValue::Null {
                continue;
            }
            let key = pyrepr::py_str(k);
            match v {
                MValue::Map(inner) => {
                    let p = format!("{prefix}{key}.");
                    self.properties(obj, inner, &p, false)?;
                }
                MValue::Seq(items) => {
                    let name = format!("{prefix}{key}");
                    for item in items {
                        if !matches!(item, MValue::Map(_)) {
                            self.property(obj, &name, item);
                        }
                    }
                }
                _ => {
                    let name = format!("{prefix}{key}");
                    self.property(obj, &name, v);
                }
            }
        }
        Ok(())
    }

    fn property(&mut self, obj: &str, name: &str, value: &MValue) {
        self.out.push(Pending::Property(PendingProperty {
            obj: obj.to_string(),
            name: name.to_string(),
            text: pyrepr::py_str(value),
            key: eq_key(value),
        }));
    }
}

/// All pairs (x, y) with a path of one or more edges from x to y.
pub fn transitive_closure(edges: &[(String, String)]) -> Vec<(String, String)> {
    let mut index: crate::datalog::hash::FxHashMap<&str, usize> = Default::default();
    let mut names: Vec<&str> = Vec::new();

    let mut adj: Vec<Vec<usize>> = Vec::new();
    for (a, b) in edges {
        let ia = *index.entry(a.as_str()).or_insert_with(|| {
            names.push(a.as_str());
            adj.push(Vec::new());
            names.len() - 1
        });
        let ib = *index.entry(b.as_str()).or_insert_with(|| {
            names.push(b.as_str());
            adj.push(Vec::new());
            names.len() - 1
        });
        if !adj[ia].contains(&ib) {
            adj[ia].push(ib);
        }
    }
    let n = names.len();
    let mut out = Vec::new();
    let mut mark = vec![usize::MAX; n];
    let mut stack = Vec::new();
    for src in 0..n {
        if adj[src].is_empty() {
            continue;
        }
        stack.clear();
        stack.extend(adj[src].iter().copied());
        while let Some(x) = stack.pop() {
            if mark[x] == src {
                continue;
            }
            mark[x] = src;
            out.push((names[src].to_string(), names[x].to_string()));
            for &y in &adj[x] {
                if mark[y] != src {
                    stack.push(y);
                }
            }
        }
    }
    out
}
