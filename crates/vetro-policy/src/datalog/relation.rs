//! Tables of tuples, and hash indices on column subsets that are extended as
//! rows arrive. Deleted rows leave a tombstone so row numbers stay valid.

use super::hash::FxHashMap;
use super::value::{Tuple, Value};

/// The live tuples of a relation, in insertion order.
pub type Rows<'r> = std::iter::Flatten<std::slice::Iter<'r, Option<Tuple>>>;

/// Indices of one relation by column list.
pub(crate) type Indices = FxHashMap<Vec<usize>, Index>;

/// A set of tuples in insertion order.
#[derive(Debug, Default, Clone)]
pub struct Relation {
    rows: Vec<Option<Tuple>>,
    pos: FxHashMap<Tuple, u32>,
}

impl Relation {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.pos.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    pub fn contains(&self, t: &[Value]) -> bool {
        self.pos.contains_key(t)
    }

    /// Adds a tuple; false when it was already present.
    pub fn insert(&mut self, t: Tuple) -> bool {
        use std::collections::hash_map::Entry;
        match self.pos.entry(t) {
            Entry::Occupied(_) => false,
            Entry::Vacant(v) => {
                let t = v.key().clone();
                v.insert(self.rows.len() as u32);
                self.rows.push(Some(t));
                true
            }
        }
    }

    pub fn reserve(&mut self, n: usize) {
        self.rows.reserve(n);
        self.pos.reserve(n);
    }

    /// Removes a tuple; false when it was absent.
    pub fn remove(&mut self, t: &[Value]) -> bool {
        match self.pos.remove(t) {
            Some(i) => {
                self.rows[i as usize] = None;
                true
            }
            None => false,
        }
    }

    /// Live tuples in insertion order.
    pub fn iter(&self) -> Rows<'_> {
        self.rows.iter().flatten()
    }

    /// Number of row slots (live or deleted), the bound for row numbers.
    pub fn slots(&self) -> usize {
        self.rows.len()
    }

    pub fn row(&self, i: usize) -> Option<&Tuple> {
        self.rows.get(i).and_then(|r| r.as_ref())
    }
}

/// An index from the values of some columns of one relation to row numbers.
#[derive(Debug, Default, Clone)]
pub struct Index {
    map: FxHashMap<Box<[Value]>, Vec<u32>>,
    covered: usize,
}

impl Index {
    /// Indexes the rows added since the last call.
    pub fn extend(&mut self, rel: &Relation, cols: &[usize]) {
        while self.covered < rel.slots() {
            if let Some(row) = rel.row(self.covered) {
                if cols.iter().all(|&c| c < row.len()) {
                    let key: Box<[Value]> = cols.iter().map(|&c| row[c]).collect();
                    self.map.entry(key).or_default().push(self.covered as u32);
                }
            }
            self.covered += 1;
        }
    }

    /// Row numbers whose indexed columns equal `key` (some may be deleted).
    pub fn lookup(&self, key: &[Value]) -> &[u32] {
        self.map.get(key).map(|v| v.as_slice()).unwrap_or(&[])
    }
}
