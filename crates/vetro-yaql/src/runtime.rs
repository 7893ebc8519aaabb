//! Options and per-evaluation state: the `yaql.*` options, the depth
//! counter, the memory quota checks and the approximate size of values.

use crate::error::{Error, ErrorKind, Result};
use crate::iter::{limited, too_large};
use crate::limits::{Limits, Run};
use crate::list_marks::ListMarks;
use crate::value::{Address, Value, WeakList};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Engine options (the reference's `yaql.*` options plus vetro's limits).
#[derive(Clone, Debug)]
pub struct Options {
    /// `yaql.limitIterators`: maximum items per collection (-1: none).
    pub limit_iterators: i64,
    /// `yaql.memoryQuota`: approximate bytes a result may take (-1: none).
    pub memory_quota: i64,
    pub convert_tuples_to_lists: bool,
    pub convert_sets_to_lists: bool,
    pub iterable_dicts: bool,
    /// Convert the result on output (`yaql.convertOutputData`).
    pub convert_output_data: bool,
    /// Maximum evaluation nesting depth (recursion limit).
    pub max_depth: usize,
    /// Time, operation, memory and cancellation limits of one evaluation.
    pub limits: Limits,
}

impl Options {
    /// `memory_quota` in bytes, if set.
    pub fn memory_quota_bytes(&self) -> Option<usize> {
        usize::try_from(self.memory_quota).ok().filter(|q| *q > 0)
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            limit_iterators: -1,
            memory_quota: -1,
            convert_tuples_to_lists: true,
            convert_sets_to_lists: false,
            iterable_dicts: false,
            convert_output_data: true,
            max_depth: 2000,
            limits: Limits::default(),
        }
    }
}

/// Large lists already found in output form, by address and the options
/// that shape the output, so that a host growing a list of lists over many
/// evaluations (`$l: $l + [...]` in a loop) does not have every inner list
/// walked again at each step. Entries hold a `Weak`: while one exists the
/// allocation is not reused for another list, and the list cannot be
/// changed in place. Shared by the evaluations of one host scope (the root
/// context's runtime holds it).
#[derive(Default)]
pub struct OutputMemo {
    pub(crate) lists: RefCell<HashMap<OutputKey, WeakList>>,
}

/// A list's address and the options of its output form.
pub(crate) type OutputKey = (Address, bool, bool, i64);

/// Per-evaluation state: options, the depth counter, the run (operation
/// counter, limits, random state; see [`crate::limits::Run`]) and the
/// output memo.
pub struct Runtime {
    pub opts: Options,
    depth: Cell<usize>,
    run: Rc<Run>,
    /// The compiled form of the expression evaluated, for the engine's
    /// library (its call sites resolved once). Held without its type: the
    /// runtime sits below the evaluator that defines it, and only the
    /// evaluator reads it back (`eval::compiled_site`).
    compiled: Option<Arc<dyn Any + Send + Sync>>,
    /// The sequences built as lists, kept when tuples are kept
    /// (`convert_tuples_to_lists` off).
    lists: Option<Rc<RefCell<ListMarks>>>,
    output_memo: Rc<OutputMemo>,
    /// Where the evaluation's walk has stack enough (see [`crate::stack::Room`]).
    room: Cell<crate::stack::Room>,
}

impl Runtime {
    pub fn new(opts: Options) -> Runtime {
        Runtime::with_output_memo(opts, Rc::default())
    }

    /// A runtime whose output conversion shares `memo` with other
    /// evaluations (those of one host scope).
    pub fn with_output_memo(opts: Options, memo: Rc<OutputMemo>) -> Runtime {
        Runtime::for_run(opts, memo, Run::idle())
    }

    /// The runtime of an evaluation that counts against `run`.
    pub(crate) fn for_run(opts: Options, memo: Rc<OutputMemo>, run: Rc<Run>) -> Runtime {
        let lists = (!opts.convert_tuples_to_lists).then(Rc::default);
        Runtime {
            opts,
            depth: Cell::new(0),
            run,
            compiled: None,
            lists,
            output_memo: memo,
            room: Cell::default(),
        }
    }

    /// Make this runtime, held by nothing else, the runtime of another
    /// evaluation with the same options (a session's next one): its depth,
    /// stack room and list marks start afresh, it counts in `run`, shares
    /// `memo` and runs `compiled`. Saves the copy of the options and the
    /// allocation a new runtime takes.
    pub(crate) fn reuse<C: Any + Send + Sync>(
        &mut self,
        memo: &Rc<OutputMemo>,
        run: &Rc<Run>,
        compiled: Option<&Arc<C>>,
    ) {
        self.depth.set(0);
        self.room.set(Default::default());
        if self.lists.is_some() {
            self.lists = Some(Rc::default());
        }
        if !Rc::ptr_eq(&self.run, run) {
            self.run = run.clone();
        }
        if !Rc::ptr_eq(&self.output_memo, memo) {
            self.output_memo = memo.clone();
        }
        let same = match (&self.compiled, compiled) {
            (Some(a), Some(b)) => std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b)),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.compiled = compiled.map(|c| c.clone() as Arc<dyn Any + Send + Sync>);
        }
    }

    /// Evaluate with `compiled`'s resolved call sites.
    pub(crate) fn with_compiled(mut self, compiled: Option<Arc<dyn Any + Send + Sync>>) -> Runtime {
        self.compiled = compiled;
        self
    }

    /// The compiled form of the expression being evaluated, if any.
    #[inline]
    pub(crate) fn compiled(&self) -> Option<&(dyn Any + Send + Sync)> {
        self.compiled.as_deref()
    }

    /// The evaluation's run: its operation counter and limits.
    pub fn run(&self) -> &Rc<Run> {
        &self.run
    }

    /// The memo of lists known to be in output form.
    pub fn output_memo(&self) -> &Rc<OutputMemo> {
        &self.output_memo
    }

    /// Record that `v`, a sequence the reference returns as a list rather
    /// than a tuple, is one (only when tuples are kept).
    pub fn mark_list(&self, v: &Value) {
        if let Some(lists) = &self.lists {
            lists.borrow_mut().mark(v);
        }
    }

    /// Whether `v` is a sequence marked as a list.
    pub fn is_list(&self, v: &Value) -> bool {
        match (&self.lists, v) {
            (Some(lists), Value::List(items)) => lists.borrow().is_list(items),
            _ => false,
        }
    }

    /// The sequences marked as lists (shared: lazy parts of a result add
    /// to them as they run).
    pub fn list_marks(&self) -> Option<Rc<RefCell<ListMarks>>> {
        self.lists.clone()
    }

    /// The memory quota in bytes, if any.
    pub fn memory_quota(&self) -> Option<usize> {
        self.opts.memory_quota_bytes()
    }

    /// The `limitIterators` check on a value passed as an iterable.
    pub fn limit(&self, v: Value) -> Result<Value> {
        let lim = self.opts.limit_iterators;
        if lim < 0 {
            return Ok(v);
        }
        let lim = lim as usize;
        let len = match &v {
            Value::List(l) => l.len(),
            Value::Set(s) => s.len(),
            Value::Dict(d) => d.len(),
            Value::Iter(it) => return Ok(Value::Iter(limited(it.cursor(), lim))),
            _ => 0,
        };
        if len > lim {
            return Err(too_large());
        }
        Ok(v)
    }

    /// One level deeper (counted as an operation): the new depth.
    #[inline]
    pub(crate) fn enter(&self) -> Result<usize> {
        let d = self.depth.get() + 1;
        if d > self.opts.max_depth {
            return Err(Error::new(
                ErrorKind::Recursion,
                "maximum recursion depth exceeded",
            ));
        }
        self.run.tick()?;
        self.depth.set(d);
        Ok(d)
    }

    /// The current nesting depth.
    #[inline]
    pub(crate) fn depth(&self) -> usize {
        self.depth.get()
    }

    /// Run one level of the evaluation's walk with enough stack: on the
    /// spot while enough is left, else on a segment from the heap.
    #[inline]
    pub(crate) fn with_stack<R>(&self, f: impl FnOnce() -> R) -> R {
        crate::stack::grow_in(&self.room, 256 * 1024, 8 * 1024 * 1024, f)
    }

    #[inline]
    pub(crate) fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }

    /// Refuse to build something of about `bytes` bytes over the memory quota.
    pub fn check_bytes(&self, bytes: usize) -> Result<()> {
        if self.memory_quota().is_some_and(|q| bytes > q) {
            return Err(crate::limits::memory_exceeded());
        }
        self.run.check_bytes(bytes)
    }

    /// Check the memory quota against a value's approximate size.
    pub fn check_memory(&self, v: &Value) -> Result<()> {
        if self.memory_quota().is_some_and(|q| approx_size(v) > q) {
            return Err(crate::limits::memory_exceeded());
        }
        Ok(())
    }
}

/// A rough lower bound of the memory a value takes (for `memoryQuota`).
pub fn approx_size(v: &Value) -> usize {
    match v {
        Value::Str(s) => 49 + s.len(),
        Value::List(l) => 40 + 8 * l.len() + l.iter().map(approx_size).sum::<usize>(),
        Value::Dict(d) => {
            64 + 24 * d.len()
                + d.iter()
                    .map(|(k, v)| approx_size(k) + approx_size(v))
                    .sum::<usize>()
        }
        Value::Set(s) => 200 + 16 * s.len() + s.iter().map(approx_size).sum::<usize>(),
        Value::BigInt(b) => 24 + (b.bits() as usize).div_ceil(8),
        _ => 24,
    }
}
