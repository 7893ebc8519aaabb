//! The dictionary of the value model: values in insertion order in one
//! buffer that dictionaries made by adding keys to one another share (see
//! [`super::shared`]), and their keys in another buffer, which
//! dictionaries with the same first keys share too: the records of a JSON
//! document hold one list of keys between them ([`DictKeys`]), so a record
//! takes one value per entry. A key is found by a scan while the
//! dictionary is small and through a table of positions, kept with the
//! keys, once it grows.

use super::shared::{Address, Room, Shared};
use super::Value;
use hashbrown::HashTable;
use std::hash::{Hash, Hasher};

/// Up to this many entries a dictionary has no table: a scan over a few
/// keys (shared strings compare by address first) is as fast as hashing.
const SCAN_MAX: usize = 8;

/// The table of positions a list of keys past [`SCAN_MAX`] entries keeps
/// beside them, for every key of its buffer (a view ignores positions past
/// its own).
type Index = Option<Box<HashTable<u32>>>;

/// A value's hash as the dictionaries' indexes use it.
pub(crate) fn hash_of(k: &Value) -> u64 {
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

/// A table of the positions of `keys`, or none when they are few.
fn index_of(keys: &[Value]) -> Index {
    if keys.len() <= SCAN_MAX {
        return None;
    }
    let mut t = HashTable::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        t.insert_unique(hash_of(k), i as u32, |&j| hash_of(&keys[j as usize]));
    }
    Some(Box::new(t))
}

/// Distinct keys in order, shared by the dictionaries built on them
/// ([`Dict::from_keys`]) and by the lists of keys made by adding to them:
/// a loader that meets many records with the same keys builds their list
/// once. Cloning shares it.
#[derive(Clone, Default)]
pub struct DictKeys(Shared<Value, Index>);

impl DictKeys {
    pub fn new() -> DictKeys {
        DictKeys::default()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    pub fn as_slice(&self) -> &[Value] {
        self.0.as_slice()
    }

    /// The position of the key `is_k` finds among the first `n`, whose
    /// hash is `hash`.
    fn position(
        &self,
        n: usize,
        hash: impl FnOnce() -> u64,
        is_k: impl Fn(&Value) -> bool,
    ) -> Option<usize> {
        let keys = &self.as_slice()[..n];
        match self.0.extra() {
            Some(t) if n > SCAN_MAX => t
                .find(hash(), |&i| keys.get(i as usize).is_some_and(&is_k))
                .map(|&i| i as usize),
            _ => keys.iter().position(is_k),
        }
    }

    /// The position of `k`.
    pub fn position_of(&self, k: &Value) -> Option<usize> {
        self.position(self.len(), || hash_of(k), |x| x == k)
    }

    /// Add `k` at the end, unless it is there already (then `false`).
    pub fn push(&mut self, k: Value) -> bool {
        if self.position_of(&k).is_some() {
            return false;
        }
        self.push_new(k);
        true
    }

    /// Add `k`, known to be absent, at the end: into the buffer's room
    /// when this list is its longest view, else into a copy.
    fn push_new(&mut self, k: Value) {
        let hash = hash_of(&k);
        if self.0.reserve(1) != (Room::Same { cut: false }) {
            self.reindex();
        }
        let (mut keys, index) = self.0.end_mut();
        let i = keys.len();
        keys.push(k);
        match index {
            Some(t) => {
                t.insert_unique(hash, i as u32, |&j| hash_of(&keys[j as usize]));
            }
            None if keys.len() > SCAN_MAX => *index = index_of(&keys),
            None => {}
        }
        self.0.sync_len();
    }

    /// Keys known to be distinct (a Python dict's string keys, say): made
    /// without comparing them.
    pub fn from_distinct(keys: Vec<Value>) -> DictKeys {
        let index = index_of(&keys);
        DictKeys(Shared::from_parts(keys, index))
    }

    fn with_capacity(n: usize) -> DictKeys {
        DictKeys(Shared::with_room(n, None))
    }

    /// Rebuild the table of positions of a list at the end of its
    /// buffer's keys.
    fn reindex(&mut self) {
        let (keys, index) = self.0.end_mut();
        *index = index_of(&keys);
    }

    fn prefix(&self, n: usize) -> DictKeys {
        DictKeys(self.0.prefix(n))
    }

    fn heap_bytes(&self) -> usize {
        self.0.block_bytes() + self.0.extra().as_ref().map_or(0, |t| t.capacity() * 5)
    }
}

impl std::fmt::Debug for DictKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// An insertion-ordered map from values to values (Python's `dict`).
/// Cloning shares it; adding a key to a dictionary that is its buffer's
/// longest view does not copy its values (see [`super::shared`]), and any
/// other change copies them first when shared. The buffer of values keeps
/// beside it the keys of all its values (its longest view's).
#[derive(Clone, Default)]
pub struct Dict(Shared<Value, DictKeys>);

impl Dict {
    pub fn new() -> Dict {
        Dict::default()
    }

    pub fn with_capacity(n: usize) -> Dict {
        Dict(Shared::with_room(n, DictKeys::with_capacity(n)))
    }

    /// A dictionary of `entries` whose keys are known to be distinct (a
    /// Python dict's string keys, say): made without comparing them.
    pub fn from_distinct(entries: Vec<(Value, Value)>) -> Dict {
        let (keys, values) = entries.into_iter().unzip();
        Dict(Shared::from_parts(values, DictKeys::from_distinct(keys)))
    }

    /// A dictionary of `keys` and `values` (as many): the keys are shared,
    /// not copied.
    ///
    /// # Panics
    /// When the two differ in length.
    pub fn from_keys(keys: &DictKeys, values: Vec<Value>) -> Dict {
        assert_eq!(keys.len(), values.len(), "as many keys as values");
        Dict(Shared::from_parts(values, keys.clone()))
    }

    /// The dictionary of `keys` and the values of `items` from `start` on
    /// (as many), moved out of it (a reader's stack of items being read).
    ///
    /// # Panics
    /// When the two differ in length.
    pub fn from_keys_tail(keys: &DictKeys, items: &mut Vec<Value>, start: usize) -> Dict {
        assert_eq!(keys.len(), items.len() - start, "as many keys as values");
        Dict(Shared::from_tail(items, start, keys.clone()))
    }

    /// This dictionary's keys, shared (dictionaries built on them with
    /// [`Dict::from_keys`] share them again).
    pub fn dict_keys(&self) -> DictKeys {
        self.0.extra().prefix(self.len())
    }

    fn key_slice(&self) -> &[Value] {
        &self.0.extra().as_slice()[..self.len()]
    }

    fn value_slice(&self) -> &[Value] {
        self.0.as_slice()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// The position of `k`.
    pub fn get_index_of(&self, k: &Value) -> Option<usize> {
        self.0
            .extra()
            .position(self.len(), || hash_of(k), |x| x == k)
    }

    /// The value of the string key `k`, found without making a value of it.
    pub fn get_str(&self, k: &str) -> Option<&Value> {
        let i = self.0.extra().position(
            self.len(),
            || super::str_hash(k),
            |x| matches!(x, Value::Str(s) if **s == *k),
        )?;
        Some(&self.value_slice()[i])
    }

    pub fn get(&self, k: &Value) -> Option<&Value> {
        self.get_index_of(k).map(|i| &self.value_slice()[i])
    }

    pub fn get_mut(&mut self, k: &Value) -> Option<&mut Value> {
        let i = self.get_index_of(k)?;
        Some(&mut self.values_vec()[i])
    }

    /// The key and value of `k`, with its position.
    pub fn get_full(&self, k: &Value) -> Option<(usize, &Value, &Value)> {
        self.get_index_of(k)
            .map(|i| (i, &self.key_slice()[i], &self.value_slice()[i]))
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
        Some((self.key_slice().get(i)?, self.value_slice().get(i)?))
    }

    pub fn first(&self) -> Option<(&Value, &Value)> {
        self.get_index(0)
    }

    pub fn last(&self) -> Option<(&Value, &Value)> {
        self.get_index(self.len().checked_sub(1)?)
    }

    /// Set `k` to `v`: a new key goes last, a present one keeps its place
    /// (and its key); the value it replaces is returned.
    pub fn insert(&mut self, k: Value, v: Value) -> Option<Value> {
        self.insert_full(k, v).1
    }

    /// [`Dict::insert`], with the position of the entry.
    pub fn insert_full(&mut self, k: Value, v: Value) -> (usize, Option<Value>) {
        if let Some(i) = self.get_index_of(&k) {
            return (i, Some(std::mem::replace(&mut self.values_vec()[i], v)));
        }
        let keys = self.dict_keys();
        self.0.reserve(1);
        let (mut values, extra) = self.0.end_mut();
        *extra = keys;
        extra.push_new(k);
        let i = values.len();
        values.push(v);
        self.0.sync_len();
        (i, None)
    }

    /// The values to change in place (copied first when shared; the keys
    /// stay shared).
    fn values_vec(&mut self) -> &mut [Value] {
        let keys = self.dict_keys();
        self.0.unshare();
        let (values, extra, _) = self.0.get_mut().expect("an unshared dictionary");
        *extra = keys;
        values.into_slice()
    }

    /// Change the entries with `f` (which may move or remove them), then
    /// build the dictionary of what is left.
    fn rearrange<R>(&mut self, f: impl FnOnce(&mut Vec<(Value, Value)>) -> R) -> R {
        let mut entries: Vec<(Value, Value)> = std::mem::take(self).into_iter().collect();
        let out = f(&mut entries);
        *self = Dict::from_distinct(entries);
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
        let n = self.len().checked_sub(1)?;
        let key = self.key_slice()[n].clone();
        let keys = self.0.extra().prefix(n);
        self.0.unshare();
        let (mut values, extra, _) = self.0.get_mut().expect("an unshared dictionary");
        let value = values.pop().expect("a last value");
        *extra = keys;
        self.0.sync_len();
        Some((key, value))
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
        Iter(self.key_slice().iter().zip(self.value_slice()))
    }

    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Value, &mut Value)> {
        self.values_vec();
        // The keys are read through the buffer's extra, the values written
        // through its items: two parts of the buffer.
        let (values, keys, _) = self.0.get_mut().expect("an unshared dictionary");
        let keys: &DictKeys = keys;
        keys.as_slice().iter().zip(values.into_slice().iter_mut())
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.key_slice().iter()
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.value_slice().iter()
    }

    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut Value> {
        self.values_vec().iter_mut()
    }

    pub fn into_keys(self) -> impl ExactSizeIterator<Item = Value> {
        self.key_slice().to_vec().into_iter()
    }

    pub fn into_values(self) -> impl ExactSizeIterator<Item = Value> {
        self.0.into_vec().into_iter()
    }

    /// Room for `n` more entries at the end of this dictionary.
    pub fn reserve(&mut self, n: usize) {
        let keys = self.dict_keys();
        self.0.reserve(n);
        *self.0.end_mut().1 = keys;
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
        Some(self.0.sole_items()?.iter_mut())
    }

    /// The values' memory and the keys' when no other dictionary shares
    /// them, in bytes (for size estimates).
    pub fn heap_bytes(&self) -> usize {
        let keys = self.0.extra();
        let own_keys = if keys.0.holders() == 1 {
            keys.heap_bytes()
        } else {
            0
        };
        self.0.block_bytes() + own_keys
    }
}

/// The entries of a [`Dict`] in order.
#[derive(Clone)]
pub struct Iter<'a>(std::iter::Zip<std::slice::Iter<'a, Value>, std::slice::Iter<'a, Value>>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Value, &'a Value);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next()
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back()
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
    type IntoIter = std::iter::Zip<std::vec::IntoIter<Value>, std::vec::IntoIter<Value>>;
    fn into_iter(self) -> Self::IntoIter {
        let keys = self.key_slice().to_vec();
        keys.into_iter().zip(self.0.into_vec())
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

    #[test]
    fn dictionaries_on_shared_keys_change_apart() {
        let mut keys = DictKeys::new();
        for i in 0..12 {
            assert!(keys.push(s(&format!("k{i}"))));
        }
        assert!(!keys.push(s("k3")));
        let values = |x: i64| (0..12).map(|i| Value::Int(i + x)).collect::<Vec<_>>();
        let mut a = Dict::from_keys(&keys, values(0));
        let mut b = Dict::from_keys(&keys, values(100));
        let c = b.clone();
        a.insert(s("extra"), Value::Int(-1));
        b.insert(s("other"), Value::Int(-2));
        *b.get_mut(&s("k0")).unwrap() = Value::Null;
        assert_eq!(a.get(&s("extra")), Some(&Value::Int(-1)));
        assert_eq!(a.get(&s("other")), None);
        assert_eq!(b.get(&s("other")), Some(&Value::Int(-2)));
        assert_eq!(b.get(&s("extra")), None);
        assert_eq!(b.get(&s("k0")), Some(&Value::Null));
        assert_eq!(c.get(&s("k0")), Some(&Value::Int(100)));
        assert_eq!(c.len(), 12);
        assert_eq!(keys.len(), 12);
        assert_eq!(a.get_index(12).map(|(k, _)| k.clone()), Some(s("extra")));
        for (i, (k, v)) in a.iter().take(12).enumerate() {
            assert_eq!((k, v), (&s(&format!("k{i}")), &Value::Int(i as i64)));
        }
        assert_eq!(a.pop(), Some((s("extra"), Value::Int(-1))));
        assert_eq!(a.len(), 12);
        a.insert(s("again"), Value::Int(7));
        assert_eq!(a.last().map(|(k, _)| k.clone()), Some(s("again")));
        assert_eq!(a.get(&s("again")), Some(&Value::Int(7)));
    }

    #[test]
    fn a_dictionary_made_by_adding_keeps_its_own_keys() {
        let mut a = Dict::new();
        a.insert(s("x"), Value::Int(1));
        let mut b = a.clone();
        b.insert(s("y"), Value::Int(2));
        let mut c = a.clone();
        c.insert(s("z"), Value::Int(3));
        assert_eq!(a.keys().cloned().collect::<Vec<_>>(), [s("x")]);
        assert_eq!(b.keys().cloned().collect::<Vec<_>>(), [s("x"), s("y")]);
        assert_eq!(c.keys().cloned().collect::<Vec<_>>(), [s("x"), s("z")]);
        assert_eq!(c.get(&s("y")), None);
        for (_, v) in c.iter_mut() {
            *v = Value::Null;
        }
        assert_eq!(b.get(&s("x")), Some(&Value::Int(1)));
        c.retain(|k, _| *k != s("x"));
        assert_eq!(c.into_iter().collect::<Vec<_>>(), [(s("z"), Value::Null)]);
        b.sort_by(|k1, _, k2, _| compare_keys(k2, k1));
        assert_eq!(b.into_keys().collect::<Vec<_>>(), [s("y"), s("x")]);
    }

    fn compare_keys(a: &Value, b: &Value) -> std::cmp::Ordering {
        a.as_str().cmp(&b.as_str())
    }
}
