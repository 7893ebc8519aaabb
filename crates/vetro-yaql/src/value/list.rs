//! The list of the value model: a view of a buffer that lists made by
//! appending to one another share (see [`super::shared`]): `$l + [$x]` in a
//! loop that keeps `$l` elsewhere writes into `$l`'s buffer instead of
//! copying it.

use super::shared::{Address, Shared, WeakShared};
use super::Value;

/// A list of values (Python's `tuple`/`list`); cloning shares it.
#[derive(Clone, Default)]
pub struct List(Shared<Value>);

/// A [`List`] that does not keep its items alive (see [`List::downgrade`]).
pub struct WeakList(WeakShared<Value, ()>);

impl WeakList {
    /// The list, if something else still holds its buffer.
    pub fn upgrade(&self) -> Option<List> {
        self.0.upgrade().map(List)
    }

    /// Whether the list is gone.
    pub fn is_dead(&self) -> bool {
        self.0.is_dead()
    }
}

impl List {
    pub fn new() -> List {
        List::default()
    }

    pub fn with_capacity(n: usize) -> List {
        List(Shared::with_room(n, ()))
    }

    pub fn as_slice(&self) -> &[Value] {
        self.0.as_slice()
    }

    /// The items to change in place when this list is its buffer's only
    /// holder (no weak holder either).
    pub fn get_mut(&mut self) -> Option<&mut [Value]> {
        self.0.get_mut().map(|(items, _, _)| items.into_slice())
    }

    /// The items to change in place: copied first when shared (copy on
    /// write).
    pub fn make_mut(&mut self) -> &mut [Value] {
        self.0.unshare();
        self.get_mut().expect("an unshared list")
    }

    /// The items as a vector, taken without copying when nothing else
    /// holds them.
    pub fn into_vec(self) -> Vec<Value> {
        self.0.into_vec()
    }

    /// Append `v`: into the buffer's room when this list is its longest
    /// view, else into a copy with room to grow.
    pub fn push(&mut self, v: Value) {
        self.0.reserve(1);
        self.0.end_mut().0.push(v);
        self.0.sync_len();
    }

    /// Room for `n` more items at the end of this list.
    pub fn reserve(&mut self, n: usize) {
        self.0.reserve(n);
    }

    /// Whether `a` and `b` are the same list.
    pub fn ptr_eq(a: &List, b: &List) -> bool {
        Shared::ptr_eq(&a.0, &b.0)
    }

    /// This list's identity (see [`Address`]).
    pub fn address(&self) -> Address {
        self.0.address()
    }

    /// The address of the buffer this list views: a list and those made by
    /// appending to it share one.
    pub fn buffer_address(&self) -> usize {
        self.0.buffer_address()
    }

    /// How many lists hold this one's buffer (this one included).
    pub fn holders(&self) -> usize {
        self.0.holders()
    }

    pub fn downgrade(&self) -> WeakList {
        WeakList(self.0.downgrade())
    }

    /// Every item of the buffer when nothing else holds it (for releasing).
    pub(super) fn sole_items(&mut self) -> Option<&mut [Value]> {
        self.0.sole_items()
    }

    /// The heap bytes of the buffer (for size estimates).
    pub fn heap_bytes(&self) -> usize {
        self.0.block_bytes()
    }
}

impl List {
    /// The list of the items of `items` from `start` on, moved out of it
    /// (a reader's stack of items being read): one allocation, at the
    /// final size.
    pub fn from_tail(items: &mut Vec<Value>, start: usize) -> List {
        List(Shared::from_tail(items, start, ()))
    }
}

impl From<Vec<Value>> for List {
    fn from(items: Vec<Value>) -> List {
        List(Shared::from_vec(items))
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(items: I) -> List {
        List::from(items.into_iter().collect::<Vec<_>>())
    }
}

impl Extend<Value> for List {
    fn extend<I: IntoIterator<Item = Value>>(&mut self, items: I) {
        let items = items.into_iter();
        self.reserve(items.size_hint().0);
        for v in items {
            self.push(v);
        }
    }
}

impl<'a> Extend<&'a Value> for List {
    fn extend<I: IntoIterator<Item = &'a Value>>(&mut self, items: I) {
        self.extend(items.into_iter().cloned());
    }
}

impl std::ops::Deref for List {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl std::fmt::Debug for List {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(l: &List) -> Vec<i64> {
        l.iter().map(|v| v.as_i64().unwrap()).collect()
    }

    #[test]
    fn appending_to_a_shared_list_leaves_the_other_holders_alone() {
        let a = List::from(vec![Value::Int(1), Value::Int(2)]);
        let mut b = a.clone();
        b.push(Value::Int(3));
        let mut c = a.clone();
        c.push(Value::Int(4));
        assert_eq!(ints(&a), [1, 2]);
        assert_eq!(ints(&b), [1, 2, 3]);
        assert_eq!(ints(&c), [1, 2, 4]);
        assert!(!List::ptr_eq(&a, &b));
        assert_ne!(a.address(), b.address());
    }

    #[test]
    fn a_loop_appending_to_a_kept_list_shares_one_buffer() {
        let mut l = List::new();
        let mut kept = Vec::new();
        for i in 0..1000 {
            kept.push(l.clone());
            l.push(Value::Int(i));
        }
        // Copies happen only when the room runs out: about log2(1000) buffers.
        let mut buffers: Vec<usize> = kept.iter().map(List::buffer_address).collect();
        buffers.dedup();
        assert!(buffers.len() <= 12, "{} buffers", buffers.len());
        assert_eq!(kept[10].len(), 10);
        assert_eq!(ints(&kept[3]), [0, 1, 2]);
        assert_eq!(l.len(), 1000);
    }

    #[test]
    fn changing_a_shared_list_copies_it() {
        let a = List::from(vec![Value::Int(1)]);
        let mut b = a.clone();
        b.make_mut()[0] = Value::Int(9);
        assert_eq!(ints(&a), [1]);
        assert_eq!(ints(&b), [9]);
        let weak = b.downgrade();
        assert!(weak.upgrade().is_some_and(|x| List::ptr_eq(&x, &b)));
        drop(b);
        assert!(weak.upgrade().is_none());
    }

    #[test]
    fn a_sole_holder_behind_the_end_cuts_the_buffer() {
        let a = List::from(vec![Value::Int(1), Value::Int(2)]);
        let mut b = a.clone();
        b.push(Value::Int(3));
        drop(b);
        let mut a = a;
        a.push(Value::Int(5));
        assert_eq!(ints(&a), [1, 2, 5]);
        assert_eq!(a.into_vec().len(), 3);
    }
}
