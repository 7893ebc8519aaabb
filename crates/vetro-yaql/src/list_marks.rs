//! Which sequences the reference builds as Python lists rather than tuples.
//!
//! The value model has one sequence type; the reference has two, and with
//! `yaql.convertTuplesToLists` off (legacy engines) its results keep them
//! apart: `list()`/`toList()` of the legacy library and `split()` return
//! lists, everything else tuples. A list in the reference is a property of
//! the object, so here it is a property of the allocation: the functions
//! that return a list mark the sequence they built, and a host converting a
//! result asks whether a sequence is marked. A sequence passed through
//! unchanged (a variable, a dictionary value) stays marked; one built from
//! it is a new tuple, as in the reference.

use crate::value::{Address, List, Value, WeakList};
use std::collections::HashSet;

/// The sequences marked as lists during one evaluation.
#[derive(Default)]
pub struct ListMarks {
    addresses: HashSet<Address>,
    /// Keep each marked allocation from being freed and its address
    /// reused by another sequence while the marks are alive.
    pins: Vec<WeakList>,
}

impl ListMarks {
    /// Mark `v` (a sequence) as a list.
    pub fn mark(&mut self, v: &Value) {
        if let Value::List(items) = v {
            if self.addresses.insert(items.address()) {
                self.pins.push(items.downgrade());
            }
        }
    }

    /// Whether `items` was marked as a list.
    pub fn is_list(&self, items: &List) -> bool {
        self.addresses.contains(&items.address())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_allocation() {
        let mut marks = ListMarks::default();
        let list = Value::list(vec![Value::Int(1)]);
        let tuple = Value::list(vec![Value::Int(1)]);
        marks.mark(&list);
        let (Value::List(l), Value::List(t)) = (&list, &tuple) else {
            unreachable!()
        };
        assert!(marks.is_list(&l.clone()));
        assert!(!marks.is_list(t));
    }
}
