//! Tables of tuples with hash indices on column subsets, extended as rows arrive.

use super::value::{Tuple, Value};
use std::collections::{HashMap, HashSet};

/// An index from the values of some columns to row numbers.
#[derive(Debug, Default, Clone)]
pub struct Index {
    map: HashMap<Box<[Value]>, Vec<u32>>,
    covered: usize,
}

/// A set of tuples in insertion order.
#[derive(Debug, Default, Clone)]
pub struct Relation {
    pub rows: Vec<Tuple>,
    set: HashSet<Tuple>,
    indices: HashMap<Vec<usize>, Index>,
}

impl Relation {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn contains(&self, t: &[Value]) -> bool {
        self.set.contains(t)
    }

    /// Adds a tuple; false when it was already present.
    pub fn insert(&mut self, t: Tuple) -> bool {
        if self.set.contains(&t) {
            return false;
        }
        self.set.insert(t.clone());
        self.rows.push(t);
        true
    }

    /// Makes sure an index on `cols` exists and covers every row.
    pub fn ensure_index(&mut self, cols: &[usize]) {
        if cols.is_empty() {
            return;
        }
        let idx = self.indices.entry(cols.to_vec()).or_default();
        while idx.covered < self.rows.len() {
            let row = &self.rows[idx.covered];
            if cols.iter().all(|&c| c < row.len()) {
                let key: Box<[Value]> = cols.iter().map(|&c| row[c]).collect();
                idx.map.entry(key).or_default().push(idx.covered as u32);
            }
            idx.covered += 1;
        }
    }

    /// Rows whose `cols` equal `key` (an index on `cols` must exist).
    pub fn lookup<'a>(&'a self, cols: &[usize], key: &[Value]) -> &'a [u32] {
        self.indices
            .get(cols)
            .and_then(|idx| idx.map.get(key))
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    pub fn has_index(&self, cols: &[usize]) -> bool {
        self.indices.contains_key(cols)
    }
}
