//! Lazy sequences (the reference's Python iterators and generators, and
//! its iterables that are not iterators). Every item pulled counts as one
//! operation of the run of the evaluation that made the sequence.

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
    /// For a sequence that every iteration reads from its start (an
    /// iterable that is not an iterator, or a `range`), how an iteration
    /// starts (see [`LazyIter::cursor`]).
    restart: Option<Restart>,
    /// The run of the evaluation that made it, whose operations its items
    /// count as (while that evaluation lasts).
    run: Option<Rc<Run>>,
}

impl LazyIter {
    fn make(
        run: Option<Rc<Run>>,
        f: impl FnMut() -> Result<Option<Value>> + 'static,
        meta: Option<Rc<dyn std::any::Any>>,
        iterator: bool,
    ) -> Rc<LazyIter> {
        Rc::new(LazyIter {
            next: RefCell::new(Some(Box::new(f))),
            meta,
            iterator,
            run,
            restart: None,
        })
    }

    /// [`LazyIter::make`] for a sequence every iteration reads from its
    /// start, as `restart` says.
    fn restartable(
        run: &Rc<Run>,
        f: impl FnMut() -> Result<Option<Value>> + 'static,
        meta: Option<Rc<dyn std::any::Any>>,
        iterator: bool,
        restart: Restart,
    ) -> Rc<LazyIter> {
        let mut made = LazyIter::make(Some(run.clone()), f, meta, iterator);
        Rc::get_mut(&mut made).expect("just made").restart = Some(restart);
        made
    }

    /// A sequence producing items from `f` until it returns `Ok(None)`,
    /// its items counted as operations of `run` (the run of the evaluation
    /// making it, `c.rt().run()` in a library function).
    pub fn from_fn(
        run: &Rc<Run>,
        f: impl FnMut() -> Result<Option<Value>> + 'static,
    ) -> Rc<LazyIter> {
        LazyIter::make(Some(run.clone()), f, None, true)
    }

    /// A sequence a host makes outside any evaluation (an iterator of its
    /// own given as data): its items count in the evaluation of a library
    /// function that iterates it (see [`LazyIter::counted_in`]).
    pub fn detached(f: impl FnMut() -> Result<Option<Value>> + 'static) -> Rc<LazyIter> {
        LazyIter::make(None, f, None, true)
    }

    /// A sequence carrying library metadata.
    pub fn with_meta(
        run: &Rc<Run>,
        f: impl FnMut() -> Result<Option<Value>> + 'static,
        meta: Rc<dyn std::any::Any>,
    ) -> Rc<LazyIter> {
        LazyIter::make(Some(run.clone()), f, Some(meta), true)
    }

    /// An iterable that is not an iterator (the reference's `orderBy`
    /// result and `memorize()`): the items of one pass of `f`, made as they
    /// are first asked for and kept, read from the start by every
    /// iteration ([`LazyIter::cursor`]). `Iterator` parameters refuse it
    /// unless `iterator` (a memorized sequence is both).
    pub fn replaying(
        run: &Rc<Run>,
        f: impl FnMut() -> Result<Option<Value>> + 'static,
        meta: Option<Rc<dyn std::any::Any>>,
        iterator: bool,
    ) -> Rc<LazyIter> {
        // The source counts nothing: each item counts as its passes read it.
        let replay = Rc::new(Replay {
            items: RefCell::new(Vec::new()),
            source: LazyIter::make(None, f, None, true),
            run: run.clone(),
        });
        let first = replay.cursor();
        LazyIter::restartable(run, first, meta, iterator, Restart::Replay(replay))
    }

    /// Python's `range(start, stop)` (the legacy `range` of two bounds): a
    /// sequence that every iteration counts again, false when empty and
    /// printed as `range(start, stop)`. It passes as an iterator, so that
    /// `len()` (which takes sequences and iterators) counts it.
    pub fn python_range(run: &Rc<Run>, start: i64, stop: i64) -> Rc<LazyIter> {
        let mut next = Some(start);
        let count = move || {
            Ok(match next {
                Some(v) if v < stop => {
                    next = v.checked_add(1);
                    Some(Value::Int(v))
                }
                _ => None,
            })
        };
        LazyIter::restartable(run, count, None, true, Restart::Range(start, stop))
    }

    /// The bounds of a [`LazyIter::python_range`].
    pub fn range_bounds(&self) -> Option<(i64, i64)> {
        match self.restart {
            Some(Restart::Range(start, stop)) => Some((start, stop)),
            _ => None,
        }
    }

    /// The sequence an iteration of this one reads: a new pass from the
    /// start for an iterable that is not an iterator or a `range`, this one
    /// itself for an iterator (as Python's `iter()`).
    pub fn cursor(self: &Rc<Self>) -> Rc<LazyIter> {
        match (&self.restart, &self.run) {
            (Some(Restart::Replay(replay)), Some(run)) => LazyIter::restartable(
                run,
                replay.cursor(),
                self.meta.clone(),
                self.iterator,
                Restart::Replay(replay.clone()),
            ),
            (Some(Restart::Range(start, stop)), Some(run)) => {
                LazyIter::python_range(run, *start, *stop)
            }
            _ => self.clone(),
        }
    }

    /// A sequence of the same items (and metadata) made from `f`, counted
    /// in the run `self` counts in.
    pub fn rewrap(&self, f: impl FnMut() -> Result<Option<Value>> + 'static) -> Rc<LazyIter> {
        LazyIter::make(self.run.clone(), f, self.meta.clone(), self.iterator)
    }

    /// This sequence as iterated by an evaluation whose run is `run`: itself
    /// while the run it was made in is in progress, else (made by a host,
    /// or by an evaluation that has ended) a view of it whose items count
    /// in `run`, so that no evaluation pulls items it does not count.
    pub fn counted_in(self: &Rc<Self>, run: &Rc<Run>) -> Rc<LazyIter> {
        if !run.is_active() || self.run.as_ref().is_some_and(|r| r.is_active()) {
            return self.clone();
        }
        let inner = self.clone();
        LazyIter::make(
            Some(run.clone()),
            move || inner.next(),
            self.meta.clone(),
            self.iterator,
        )
    }

    /// The run its items count in, if any.
    pub fn run(&self) -> Option<&Rc<Run>> {
        self.run.as_ref()
    }

    /// Pull the next item. An exhausted iterator keeps returning `None`.
    pub fn next(&self) -> Result<Option<Value>> {
        if let Some(run) = &self.run {
            run.tick()?;
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

/// How an iteration of a sequence read again by every iteration starts.
enum Restart {
    /// Reading the items kept so far.
    Replay(Rc<Replay>),
    /// Counting from `start` up to `stop` again.
    Range(i64, i64),
}

/// The items of an iterable that is not an iterator: those one pass of
/// `source` has made so far, which every iteration reads before it asks
/// `source` for more.
struct Replay {
    items: RefCell<Vec<Value>>,
    source: Rc<LazyIter>,
    /// The run whose build budget the kept items count against.
    run: Rc<Run>,
}

impl Replay {
    /// A pass over the items from the first.
    fn cursor(self: &Rc<Self>) -> impl FnMut() -> Result<Option<Value>> + 'static {
        let replay = self.clone();
        let mut at = 0;
        move || {
            let item = replay.item(at)?;
            at += usize::from(item.is_some());
            Ok(item)
        }
    }

    /// The item at `i`, made now if no pass has reached it.
    fn item(&self, i: usize) -> Result<Option<Value>> {
        if let Some(v) = self.items.borrow().get(i) {
            return Ok(Some(v.clone()));
        }
        // Made one at a time: a pass behind the others reads the kept ones.
        let Some(v) = self.source.next()? else {
            return Ok(None);
        };
        let mut items = self.items.borrow_mut();
        items.push(v.clone());
        self.run.check_built(items.len())?;
        Ok(Some(v))
    }
}
