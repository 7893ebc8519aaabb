//! The dictionary of the value model: entries in insertion order in one
//! buffer that dictionaries made by adding keys to one another share (see
//! [`super::shared`]), found by a scan while the dictionary is small and
//! through a table of positions once it grows. Most dictionaries of JSON
//! records have a handful of keys: they then take two values per entry and
//! nothing else.

use super::shared::{Address, Room, Shared};
use super::Value;
use hashbrown::HashTable;
use std::hash::{Hash, Hasher};

/// Up to this many entries a dictionary has no table: a scan over a few
/// keys (shared strings compare by address first) is as fast as hashing.
const SCAN_MAX: usize = 8;

/// The table of positions a dictionary past [`SCAN_MAX`] entries keeps
/// beside them, for every entry of its buffer (a view ignores positions
/// past its own).
type Index = Option<Box<HashTable<u32>>>;

/// An insertion-ordered map from values to values (Python's `dict`).
/// Cloning shares it; adding a key to a dictionary that is its buffer's
/// longest view does not copy it (see [`super::shared`]), and any other
/// change copies it first when shared.
#[derive(Clone, Default)]
pub struct Dict(Shared<(Value, Value), Index>);

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

/// A table of the positions of `entries`, or none when they are few.
fn index_of(entries: &[(Value, Value)]) -> Index {
    if entries.len() <= SCAN_MAX {
        return None;
    }
    let mut t = HashTable::with_capacity(entries.len());
    for (i, (k, _)) in entries.iter().enumerate() {
        t.insert_unique(hash_of(k), i as u32, |&j| hash_of(&entries[j as usize].0));
    }
    Some(Box::new(t))
}

impl Dict {
    pub fn new() -> Dict {
        Dict::default()
    }

    pub fn with_capacity(n: usize) -> Dict {
        Dict(Shared::from_vec(Vec::with_capacity(n)))
    }

    /// A dictionary of `entries` whose keys are known to be distinct (a
    /// Python dict's string keys, say): made without comparing them.
    pub fn from_distinct(entries: Vec<(Value, Value)>) -> Dict {
        let mut d = Dict(Shared::from_vec(entries));
        d.reindex();
        d
    }

    fn entries(&self) -> &[(Value, Value)] {
        self.0.as_slice()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// The position of the key `is_k` finds, whose hash is `hash`.
    fn position(&self, hash: impl FnOnce() -> u64, is_k: impl Fn(&Value) -> bool) -> Option<usize> {
        let entries = self.entries();
        match self.0.extra() {
            Some(t) if entries.len() > SCAN_MAX => t
                .find(hash(), |&i| {
                    entries.get(i as usize).is_some_and(|(x, _)| is_k(x))
                })
                .map(|&i| i as usize),
            _ => entries.iter().position(|(x, _)| is_k(x)),
        }
    }

    /// The position of `k`.
    pub fn get_index_of(&self, k: &Value) -> Option<usize> {
        self.position(|| hash_of(k), |x| x == k)
    }

    /// The value of the string key `k`, found without making a value of it.
    pub fn get_str(&self, k: &str) -> Option<&Value> {
        let i = self.position(
            || super::str_hash(k),
            |x| matches!(x, Value::Str(s) if **s == *k),
        )?;
        Some(&self.entries()[i].1)
    }

    pub fn get(&self, k: &Value) -> Option<&Value> {
        self.get_index_of(k).map(|i| &self.entries()[i].1)
    }

    pub fn get_mut(&mut self, k: &Value) -> Option<&mut Value> {
        let i = self.get_index_of(k)?;
        Some(&mut self.entries_mut()[i].1)
    }

    /// The key and value of `k`, with its position.
    pub fn get_full(&self, k: &Value) -> Option<(usize, &Value, &Value)> {
        self.get_index_of(k).map(|i| {
            let (k, v) = &self.entries()[i];
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
        self.entries().get(i).map(|(k, v)| (k, v))
    }

    pub fn first(&self) -> Option<(&Value, &Value)> {
        self.get_index(0)
    }

    pub fn last(&self) -> Option<(&Value, &Value)> {
        self.entries().last().map(|(k, v)| (k, v))
    }

    /// Set `k` to `v`: a new key goes last, a present one keeps its place
    /// (and its key); the value it replaces is returned.
    pub fn insert(&mut self, k: Value, v: Value) -> Option<Value> {
        self.insert_full(k, v).1
    }

    /// [`Dict::insert`], with the position of the entry.
    pub fn insert_full(&mut self, k: Value, v: Value) -> (usize, Option<Value>) {
        if let Some(i) = self.get_index_of(&k) {
            return (i, Some(std::mem::replace(&mut self.entries_mut()[i].1, v)));
        }
        self.reserve(1);
        let hash = hash_of(&k);
        let (entries, index) = self.0.end_mut();
        let i = entries.len();
        entries.push((k, v));
        match index {
            Some(t) => {
                t.insert_unique(hash, i as u32, |&j| hash_of(&entries[j as usize].0));
            }
            None if entries.len() > SCAN_MAX => *index = index_of(entries),
            None => {}
        }
        self.0.sync_len();
        (i, None)
    }

    /// The entries to change in place (copied first when shared).
    fn entries_mut(&mut self) -> &mut Vec<(Value, Value)> {
        if self.0.unshare() != (Room::Same { cut: false }) {
            self.reindex();
        }
        self.0.get_mut().expect("an unshared dictionary").0
    }

    /// Rebuild the table of positions of a dictionary at the end of its
    /// buffer's entries.
    fn reindex(&mut self) {
        let (entries, index) = self.0.end_mut();
        *index = index_of(entries);
    }

    /// Change the entries in place with `f` (which may move or remove
    /// them), then index them again.
    fn rearrange<R>(&mut self, f: impl FnOnce(&mut Vec<(Value, Value)>) -> R) -> R {
        let out = f(self.entries_mut());
        self.0.sync_len();
        self.reindex();
        out
    }

    /// Remove `k`, keeping the order of the others.
    pub fn shift_remove(&mut self, k: &Value) -> Option<Value> {
        let i = self.get_index_of(k)?;
        Some(self.rearrange(|e| e.remove(i)).1)
    }

    /// Remove `k`, moving the last entry into its place.
    pub fn swap_remove(&mut self, k: &Value) -> Option<Value> {
        let i = self.get_index_of(k)?;
        Some(self.rearrange(|e| e.swap_remove(i)).1)
    }

    /// Remove and return the last entry.
    pub fn pop(&mut self) -> Option<(Value, Value)> {
        self.rearrange(|e| e.pop())
    }

    pub fn clear(&mut self) {
        *self = Dict::new();
    }

    /// Keep the entries for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&Value, &mut Value) -> bool) {
        self.rearrange(|e| e.retain_mut(|(k, v)| keep(k, v)));
    }

    /// Sort the entries with `cmp` (keys, then values).
    pub fn sort_by(
        &mut self,
        mut cmp: impl FnMut(&Value, &Value, &Value, &Value) -> std::cmp::Ordering,
    ) {
        self.rearrange(|e| e.sort_by(|(k1, v1), (k2, v2)| cmp(k1, v1, k2, v2)));
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries().iter())
    }

    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Value, &mut Value)> {
        self.entries_mut().iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries().iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries().iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut Value> {
        self.entries_mut().iter_mut().map(|(_, v)| v)
    }

    pub fn into_keys(self) -> impl ExactSizeIterator<Item = Value> {
        self.0.into_vec().into_iter().map(|(k, _)| k)
    }

    pub fn into_values(self) -> impl ExactSizeIterator<Item = Value> {
        self.0.into_vec().into_iter().map(|(_, v)| v)
    }

    /// Room for `n` more entries at the end of this dictionary.
    pub fn reserve(&mut self, n: usize) {
        if self.0.reserve(n) != (Room::Same { cut: false }) {
            self.reindex();
        }
    }

    /// Whether `a` and `b` are the same dictionary.
    pub fn ptr_eq(a: &Dict, b: &Dict) -> bool {
        Shared::ptr_eq(&a.0, &b.0)
    }

    /// This dictionary's identity (see [`Address`]).
    pub fn address(&self) -> Address {
        self.0.address()
    }

    /// The address of the buffer this dictionary views: a dictionary and
    /// those made by adding keys to it share one.
    pub fn buffer_address(&self) -> usize {
        self.0.buffer_address()
    }

    /// How many dictionaries hold this one's buffer (this one included).
    pub fn holders(&self) -> usize {
        self.0.holders()
    }

    /// Every value of the buffer when nothing else holds it (for releasing).
    pub(super) fn sole_values(&mut self) -> Option<impl Iterator<Item = &mut Value>> {
        Some(self.0.sole_items()?.iter_mut().map(|(_, v)| v))
    }

    /// The entries' memory, in bytes (for size estimates).
    pub fn heap_bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<(Value, Value)>()
            + self.0.extra().as_ref().map_or(0, |t| t.capacity() * 5)
            + 48
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
        self.0.into_vec().into_iter()
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
    fn made_from_distinct_keys_finds_them_and_grows() {
        for n in [3usize, 8, 9, 40] {
            let entries = (0..n).map(|i| (s(&format!("k{i}")), Value::Int(i as i64)));
            let mut d = Dict::from_distinct(entries.collect());
            assert_eq!(d.len(), n);
            for i in 0..n {
                assert_eq!(d.get_index_of(&s(&format!("k{i}"))), Some(i));
            }
            assert_eq!(d.insert(s("k0"), Value::Null), Some(Value::Int(0)));
            assert_eq!(d.insert(s("new"), Value::Null), None);
            assert_eq!(d.get_index_of(&s("new")), Some(n));
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
