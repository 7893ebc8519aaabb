//! The dictionary of the value model: entries in insertion order in one
//! vector, found by a scan while the dictionary is small and through a
//! table of positions once it grows. Most dictionaries of JSON records have
//! a handful of keys: they then take two words per entry and nothing else.

use super::Value;
use hashbrown::HashTable;
use std::hash::{Hash, Hasher};

/// Up to this many entries a dictionary has no table: a scan over a few
/// keys (shared strings compare by address first) is as fast as hashing.
const SCAN_MAX: usize = 8;

/// An insertion-ordered map from values to values (Python's `dict`).
#[derive(Clone, Default)]
pub struct Dict {
    entries: Vec<(Value, Value)>,
    /// Positions in `entries`, by the hash of their keys; only past
    /// [`SCAN_MAX`] entries.
    index: Option<Box<HashTable<u32>>>,
}

fn hash_of(k: &Value) -> u64 {
    let mut h = NoHash(0);
    k.hash(&mut h);
    h.0
}

/// Takes the one `u64` a value's hash writes (already well mixed).
struct NoHash(u64);

impl Hasher for NoHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl Dict {
    pub fn new() -> Dict {
        Dict::default()
    }

    pub fn with_capacity(n: usize) -> Dict {
        let mut d = Dict {
            entries: Vec::with_capacity(n),
            index: None,
        };
        if n > SCAN_MAX {
            d.index = Some(Box::new(HashTable::with_capacity(n)));
        }
        d
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The position of `k`.
    pub fn get_index_of(&self, k: &Value) -> Option<usize> {
        match &self.index {
            None => self.entries.iter().position(|(x, _)| x == k),
            Some(t) => t
                .find(hash_of(k), |&i| self.entries[i as usize].0 == *k)
                .map(|&i| i as usize),
        }
    }

    /// The value of the string key `k`, found without making a value of it.
    pub fn get_str(&self, k: &str) -> Option<&Value> {
        let is_k = |x: &Value| matches!(x, Value::Str(s) if **s == *k);
        let i = match &self.index {
            None => self.entries.iter().position(|(x, _)| is_k(x)),
            Some(t) => t
                .find(super::str_hash(k), |&i| is_k(&self.entries[i as usize].0))
                .map(|&i| i as usize),
        };
        i.map(|i| &self.entries[i].1)
    }

    pub fn get(&self, k: &Value) -> Option<&Value> {
        self.get_index_of(k).map(|i| &self.entries[i].1)
    }

    pub fn get_mut(&mut self, k: &Value) -> Option<&mut Value> {
        let i = self.get_index_of(k)?;
        Some(&mut self.entries[i].1)
    }

    /// The key and value of `k`, with its position.
    pub fn get_full(&self, k: &Value) -> Option<(usize, &Value, &Value)> {
        self.get_index_of(k).map(|i| {
            let (k, v) = &self.entries[i];
            (i, k, v)
        })
    }

    /// The key and value stored for `k`.
    pub fn get_key_value(&self, k: &Value) -> Option<(&Value, &Value)> {
        self.get_full(k).map(|(_, k, v)| (k, v))
    }

    pub fn contains_key(&self, k: &Value) -> bool {
        self.get_index_of(k).is_some()
    }

    /// The entry at position `i`.
    pub fn get_index(&self, i: usize) -> Option<(&Value, &Value)> {
        self.entries.get(i).map(|(k, v)| (k, v))
    }

    pub fn first(&self) -> Option<(&Value, &Value)> {
        self.get_index(0)
    }

    pub fn last(&self) -> Option<(&Value, &Value)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    /// Set `k` to `v`: a new key goes last, a present one keeps its place
    /// (and its key); the value it replaces is returned.
    pub fn insert(&mut self, k: Value, v: Value) -> Option<Value> {
        self.insert_full(k, v).1
    }

    /// [`Dict::insert`], with the position of the entry.
    pub fn insert_full(&mut self, k: Value, v: Value) -> (usize, Option<Value>) {
        if let Some(i) = self.get_index_of(&k) {
            return (i, Some(std::mem::replace(&mut self.entries[i].1, v)));
        }
        let i = self.entries.len();
        match &mut self.index {
            Some(t) => {
                let entries = &self.entries;
                t.insert_unique(hash_of(&k), i as u32, |&j| hash_of(&entries[j as usize].0));
            }
            None if i == SCAN_MAX => {
                self.entries.push((k, v));
                self.reindex();
                return (i, None);
            }
            None => {}
        }
        self.entries.push((k, v));
        (i, None)
    }

    /// Rebuild the table of positions (or drop it when small enough).
    fn reindex(&mut self) {
        if self.entries.len() <= SCAN_MAX {
            self.index = None;
            return;
        }
        let mut t = HashTable::with_capacity(self.entries.len());
        for (i, (k, _)) in self.entries.iter().enumerate() {
            let entries = &self.entries;
            t.insert_unique(hash_of(k), i as u32, |&j| hash_of(&entries[j as usize].0));
        }
        self.index = Some(Box::new(t));
    }

    /// Remove `k`, keeping the order of the others.
    pub fn shift_remove(&mut self, k: &Value) -> Option<Value> {
        let i = self.get_index_of(k)?;
        let (_, v) = self.entries.remove(i);
        self.reindex();
        Some(v)
    }

    /// Remove `k`, moving the last entry into its place.
    pub fn swap_remove(&mut self, k: &Value) -> Option<Value> {
        let i = self.get_index_of(k)?;
        let (_, v) = self.entries.swap_remove(i);
        self.reindex();
        Some(v)
    }

    /// Remove and return the last entry.
    pub fn pop(&mut self) -> Option<(Value, Value)> {
        let e = self.entries.pop();
        self.reindex();
        e
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.index = None;
    }

    /// Keep the entries for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Value, &mut Value) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
        self.reindex();
    }

    /// Sort the entries with `cmp` (keys, then values).
    pub fn sort_by(
        &mut self,
        mut cmp: impl FnMut(&Value, &Value, &Value, &Value) -> std::cmp::Ordering,
    ) {
        self.entries
            .sort_by(|(k1, v1), (k2, v2)| cmp(k1, v1, k2, v2));
        self.reindex();
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Value, &mut Value)> {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut Value> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn into_keys(self) -> impl ExactSizeIterator<Item = Value> {
        self.entries.into_iter().map(|(k, _)| k)
    }

    pub fn into_values(self) -> impl ExactSizeIterator<Item = Value> {
        self.entries.into_iter().map(|(_, v)| v)
    }

    /// Room for `n` more entries.
    pub fn reserve(&mut self, n: usize) {
        self.entries.reserve(n);
    }

    /// The entries' memory, in bytes (for size estimates).
    pub fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<(Value, Value)>()
            + self.index.as_ref().map_or(0, |t| t.capacity() * 5)
    }
}

/// The entries of a [`Dict`] in order.
#[derive(Clone)]
pub struct Iter<'a>(std::slice::Iter<'a, (Value, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Value, &'a Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Dict {
    type Item = (&'a Value, &'a Value);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl IntoIterator for Dict {
    type Item = (Value, Value);
    type IntoIter = std::vec::IntoIter<(Value, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl FromIterator<(Value, Value)> for Dict {
    fn from_iter<I: IntoIterator<Item = (Value, Value)>>(items: I) -> Dict {
        let items = items.into_iter();
        let mut d = Dict::with_capacity(items.size_hint().0);
        d.extend(items);
        d
    }
}

impl<const N: usize> From<[(Value, Value); N]> for Dict {
    fn from(items: [(Value, Value); N]) -> Dict {
        items.into_iter().collect()
    }
}

impl Extend<(Value, Value)> for Dict {
    fn extend<I: IntoIterator<Item = (Value, Value)>>(&mut self, items: I) {
        for (k, v) in items {
            self.insert(k, v);
        }
    }
}

impl std::ops::Index<&Value> for Dict {
    type Output = Value;
    fn index(&self, k: &Value) -> &Value {
        self.get(k).expect("no such key in the dictionary")
    }
}

impl std::fmt::Debug for Dict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::from(x)
    }

    #[test]
    fn keeps_order_and_finds_keys_small_and_large() {
        for n in [3usize, 8, 9, 40] {
            let mut d = Dict::new();
            for i in 0..n {
                assert_eq!(d.insert(s(&format!("k{i}")), Value::Int(i as i64)), None);
            }
            assert_eq!(d.len(), n);
            for i in 0..n {
                assert_eq!(d.get(&s(&format!("k{i}"))), Some(&Value::Int(i as i64)));
                assert_eq!(
                    d.get_index(i).map(|(_, v)| v.clone()),
                    Some(Value::Int(i as i64))
                );
            }
            assert!(d.get(&s("absent")).is_none());
            // Replacing keeps the place.
            assert_eq!(d.insert(s("k0"), Value::Null), Some(Value::Int(0)));
            assert_eq!(d.get_index_of(&s("k0")), Some(0));
            // Removing keeps the order of the rest and the lookups right.
            assert_eq!(d.shift_remove(&s("k1")), Some(Value::Int(1)));
            assert_eq!(d.len(), n - 1);
            for i in 2..n {
                assert_eq!(d.get_index_of(&s(&format!("k{i}"))), Some(i - 1));
            }
        }
    }

    #[test]
    fn string_keys_are_found_by_text() {
        for n in [3usize, 30] {
            let d: Dict = (0..n)
                .map(|i| (s(&format!("k{i}")), Value::Int(i as i64)))
                .collect();
            assert_eq!(d.get_str("k2"), Some(&Value::Int(2)));
            assert_eq!(d.get_str("k"), None);
        }
    }

    #[test]
    fn equal_numbers_are_one_key() {
        let mut d: Dict = (0..20).map(|i| (Value::Int(i), Value::Int(i))).collect();
        assert_eq!(
            d.insert(Value::Float(3.0), Value::Null),
            Some(Value::Int(3))
        );
        assert_eq!(d.get(&Value::Bool(true)), Some(&Value::Int(1)));
        assert_eq!(d.len(), 20);
    }
}
