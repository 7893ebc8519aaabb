//! Lazy, single-pass sequences (the reference's Python iterators and
//! generators). Every item pulled counts as one operation of the running
//! evaluation's limits.

use crate::error::{Error, Result};
use crate::limits::Run;
use crate::value::Value;
use std::cell::RefCell;
use std::rc::Rc;

type NextFn = Box<dyn FnMut() -> Result<Option<Value>>>;

/// A lazy, single-pass sequence (the reference's Python iterators/generators).
pub struct LazyIter {
    next: RefCell<Option<NextFn>>,
    /// Extra data a library function attaches (e.g. `orderBy` keys for `thenBy`).
    pub meta: Option<Rc<dyn std::any::Any>>,
    /// False for a sequence the reference models as an iterable that is not
    /// an iterator (`orderBy` results): `Iterator` parameters refuse it.
    pub iterator: bool,
    /// The run of the evaluation that made it, whose operations its items
    /// count as (while that evaluation lasts).
    run: Option<Rc<Run>>,
}

impl LazyIter {
    /// A sequence producing items from `f` until it returns `Ok(None)`.
    pub fn from_fn(f: impl FnMut() -> Result<Option<Value>> + 'static) -> Rc<LazyIter> {
        Rc::new(LazyIter {
            next: RefCell::new(Some(Box::new(f))),
            meta: None,
            iterator: true,
            run: crate::limits::current_run(),
        })
    }

    /// A sequence carrying library metadata.
    pub fn with_meta(
        f: impl FnMut() -> Result<Option<Value>> + 'static,
        meta: Rc<dyn std::any::Any>,
    ) -> Rc<LazyIter> {
        Rc::new(LazyIter {
            next: RefCell::new(Some(Box::new(f))),
            meta: Some(meta),
            iterator: true,
            run: crate::limits::current_run(),
        })
    }

    /// An iterable that is not an iterator, carrying library metadata.
    pub fn iterable_with_meta(
        f: impl FnMut() -> Result<Option<Value>> + 'static,
        meta: Rc<dyn std::any::Any>,
    ) -> Rc<LazyIter> {
        Rc::new(LazyIter {
            next: RefCell::new(Some(Box::new(f))),
            meta: Some(meta),
            iterator: false,
            run: crate::limits::current_run(),
        })
    }

    /// Pull the next item. An exhausted iterator keeps returning `None`.
    pub fn next(&self) -> Result<Option<Value>> {
        match &self.run {
            Some(run) => run.tick()?,
            None => crate::limits::tick()?,
        }
        let mut slot = self
            .next
            .try_borrow_mut()
            .map_err(|_| Error::value_err("generator already executing"))?;
        let Some(f) = slot.as_mut() else {
            return Ok(None);
        };
        // Returned as it is, so that it is made where the caller wants it
        // (a copy of a result just written by parts stalls the processor).
        let next = f();
        if !matches!(next, Ok(Some(_))) {
            *slot = None;
        }
        next
    }
}
