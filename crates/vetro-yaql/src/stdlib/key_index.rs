//! Distinct values in the order they were first met, each found by its
//! position: the groups of `groupBy`, the items `distinct` has seen.

use crate::value::{hash_of, Value};
use hashbrown::HashTable;

/// Up to this many values there is no table: a scan over a few values is
/// as fast as hashing one.
const SCAN_MAX: usize = 8;

/// Distinct values in order, found by a scan while they are few and
/// through a table of positions once they are more (a value's hash is
/// computed once per lookup then).
#[derive(Default)]
pub struct KeyIndex {
    keys: Vec<Value>,
    table: Option<HashTable<usize>>,
}

impl KeyIndex {
    pub fn new() -> KeyIndex {
        KeyIndex::default()
    }

    /// The position of `k`, added at the end when it is new (then `true`).
    pub fn find_or_add(&mut self, k: Value) -> (usize, bool) {
        let Some(table) = self.table.as_mut() else {
            if let Some(i) = self.keys.iter().position(|x| same(x, &k)) {
                return (i, false);
            }
            self.keys.push(k);
            if self.keys.len() > SCAN_MAX {
                self.table = Some(table_of(&self.keys));
            }
            return (self.keys.len() - 1, true);
        };
        let keys = &mut self.keys;
        let hash = hash_of(&k);
        if let Some(&i) = table.find(hash, |&i| same(&keys[i], &k)) {
            return (i, false);
        }
        let i = keys.len();
        keys.push(k);
        table.insert_unique(hash, i, |&j| hash_of(&keys[j]));
        (i, true)
    }

    /// The values, in the order they were added.
    pub fn into_keys(self) -> Vec<Value> {
        self.keys
    }
}

/// `a == b`, without a call for two strings or two integers.
#[inline]
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        _ => a == b,
    }
}

fn table_of(keys: &[Value]) -> HashTable<usize> {
    let mut t = HashTable::with_capacity(keys.len() * 2);
    for (i, k) in keys.iter().enumerate() {
        t.insert_unique(hash_of(k), i, |&j| hash_of(&keys[j]));
    }
    t
}
