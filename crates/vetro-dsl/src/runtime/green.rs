//! Cooperative green threads for `Parallel` and `pselect`, and the
//! `Synchronize` method meta.
//!
//! Each branch runs on its own coroutine stack (corosensei) in the session's
//! one OS thread. A branch runs until it yields (`yield()`, `sleep()`, or
//! waiting for a `Synchronize` lock), then the next branch runs, round robin.
//! The executor's per-flow state (the MuranoPL call stack, the live frames
//! that are GC roots, the call depth: `frames.rs`) is swapped in and out with
//! the branch; the session's `Scheduler` keeps
//! it while the branch waits, with the locks and which branch started which.

use super::limits::SessionLimits;
use super::model::meta_entries;
use super::types::*;
use super::Rt;
use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::Cell;
use std::collections::VecDeque;
use std::rc::Rc;
use vetro_yaql::Value;

/// The lock a method call holds while it runs (see [`sync_key`]): the
/// method, by the addresses of its class and definition (both live as long
/// as the session), with the identities of the receiver and of the argument
/// values the `Synchronize` meta names.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct SyncKey {
    class: usize,
    method: usize,
    receiver: Option<Identity>,
    /// (argument name, its value's identity; none when it has no value).
    args: Vec<(String, Option<Identity>)>,
}

/// A value as a lock tells it from others.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Identity {
    /// An object, by address (the call that holds the lock holds the
    /// object too).
    Object(usize),
    /// Any other value, by its text.
    Text(String),
}

/// A branch: the work of one green thread.
pub(super) type Task = Box<dyn FnOnce() -> Result<Value, Exc>>;

type Green = Coroutine<(), (), Result<Value, Exc>, DefaultStack>;

// Thread-locals, off the hot path (read at thread switches and once per
// method call for the lock's owner): kept stacks outlive sessions and serve
// every session of the thread, and the running coroutine's yielder belongs
// to the OS thread it runs on, whichever session's code calls `yield`.
thread_local! {
    /// The yielder of the green thread running now (null: the main flow).
    static CURRENT: Cell<*const Yielder<(), ()>> = const { Cell::new(std::ptr::null()) };
    /// The id of the green thread running now (0: the main flow).
    static TASK: Cell<u64> = const { Cell::new(0) };
    static NEXT_TASK: Cell<u64> = const { Cell::new(1) };
    /// Stacks of finished green threads, kept for the next ones.
    static STACKS: std::cell::RefCell<Vec<DefaultStack>> = const { std::cell::RefCell::new(Vec::new()) };
}

const KEPT_STACKS: usize = 64;

/// A concurrency limit under which every stack comes from the kept ones once
/// they exist (for internal fan-outs such as destroying a group of objects).
pub(super) const POOL_LIMIT: usize = 8;

/// Stack size of a green thread: the executor recurses deeply.
const STACK_BYTES: usize = 8 << 20;

/// The id of the running green thread (0 outside any).
fn current_task() -> u64 {
    TASK.with(Cell::get)
}

/// Let the other green threads run; nothing outside of one.
pub fn yield_now() {
    let me = CURRENT.with(Cell::get);
    if me.is_null() {
        return;
    }
    let task = current_task();
    let bounds = super::stack::bounds();
    // SAFETY: `me` is the yielder of the coroutine executing this code; it
    // stays valid while its body runs, and the body is running now.
    unsafe { (*me).suspend(()) };
    CURRENT.with(|c| c.set(me));
    TASK.with(|t| t.set(task));
    super::stack::set_bounds(bounds);
}

/// The running flow's thread-local state, put back when dropped.
struct Restore {
    current: *const Yielder<(), ()>,
    task: u64,
    bounds: super::stack::Bounds,
}

impl Drop for Restore {
    fn drop(&mut self) {
        super::stack::set_bounds(self.bounds);
        CURRENT.with(|c| c.set(self.current));
        TASK.with(|c| c.set(self.task));
    }
}

struct Thread {
    id: u64,
    green: Green,
    /// The thread's stack (see `stack.rs`).
    bounds: super::stack::Bounds,
    index: usize,
}

impl Rt {
    /// Run `tasks` as green threads, at most `limit` at a time; their results
    /// in task order.
    pub(super) fn run_green(
        &self,
        tasks: Vec<Task>,
        limit: Option<usize>,
    ) -> Vec<Result<Value, Exc>> {
        let n = tasks.len();
        if n == 1 {
            // Nothing to interleave with: run in place.
            return tasks.into_iter().map(|t| t()).collect();
        }
        let mut results: Vec<Option<Result<Value, Exc>>> = (0..n).map(|_| None).collect();
        let mut waiting: VecDeque<(usize, Task)> = tasks.into_iter().enumerate().collect();
        let mut running: VecDeque<Thread> = VecDeque::new();
        let cap = limit.unwrap_or(n).max(1);
        let base = self.frames.mark();
        let outer = (CURRENT.with(Cell::get), current_task());
        while !waiting.is_empty() || !running.is_empty() {
            while running.len() < cap {
                let Some((index, task)) = waiting.pop_front() else {
                    break;
                };
                if let Some(e) = self.limits.green_refused(self.scheduler.live()) {
                    // Past the session's bound: this branch and the ones
                    // not started yet fail; the running ones finish.
                    results[index] = Some(Err(e.clone()));
                    for (index, _) in waiting.drain(..) {
                        results[index] = Some(Err(e.clone()));
                    }
                    break;
                }
                match spawn(index, task) {
                    Some(t) => {
                        self.scheduler.started(t.id, outer.1);
                        running.push_back(t)
                    }
                    None => results[index] = Some(Err(super::limits::SessionLimits::no_stack())),
                }
            }
            let Some(mut t) = running.pop_front() else {
                break;
            };
            self.frames.restore(base, self.scheduler.unpark(t.id));
            let step = {
                // Restores the outer flow's state even when the branch panics,
                // so that nothing later on this thread sees a freed yielder.
                let _outer = Restore {
                    current: outer.0,
                    task: outer.1,
                    bounds: super::stack::set_bounds(t.bounds),
                };
                TASK.with(|c| c.set(t.id));
                t.green.resume(())
            };
            self.scheduler.park(t.id, self.frames.split_off(base));
            match step {
                CoroutineResult::Yield(()) => running.push_back(t),
                CoroutineResult::Return(r) => {
                    self.scheduler.finished(t.id);
                    results[t.index] = Some(r);
                    let stack = t.green.into_stack();
                    STACKS.with(|s| {
                        let mut s = s.borrow_mut();
                        if s.len() < KEPT_STACKS {
                            s.push(stack);
                        }
                    });
                }
            }
            // A thread that yields lets the flows outside this `Parallel` run too.
            if !running.is_empty() {
                yield_now();
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or(Ok(Value::Null)))
            .collect()
    }

    /// Wait (yielding) until the lock `key` is free or ours, then hold it.
    /// Waiting counts as steps, so a deadlock ends at the step or time limit.
    pub(super) fn lock_sync(&self, key: &SyncKey) -> Result<(), Exc> {
        let me = current_task();
        loop {
            let holder = self.scheduler.lock_holder(key);
            match holder {
                // A holder that started this thread waits for it: no wait.
                Some(t)
                    if !self.scheduler.is_ancestor(t, me) && !CURRENT.with(Cell::get).is_null() =>
                {
                    self.limits.charge_step()?;
                    yield_now()
                }
                _ => break,
            }
        }
        self.scheduler.hold(key, me);
        Ok(())
    }
}

/// The lock key of a method call. Calls of one method are serialized per
/// receiver by default; the `Synchronize` meta changes that: `onThis:
/// false` drops the receiver from the key, `onArgs` adds the values of the
/// named arguments. A key with neither takes no lock.
pub(super) fn sync_key(
    limits: &SessionLimits,
    decl: &Rc<Class>,
    m: &crate::syntax::MethodDef,
    this: &Value,
    args: &vetro_yaql::Context,
) -> Result<Option<SyncKey>, Exc> {
    let (mut on_this, mut on_args) = (true, Vec::new());
    if !matches!(m.meta, crate::syntax::Data::Null) {
        if let Some((_, props)) = meta_entries(decl, &m.meta)
            .into_iter()
            .find(|(full, _)| full == "io.murano.metadata.engine.Synchronize")
        {
            on_this = !matches!(props.get("onThis"), Some(crate::syntax::Data::Bool(false)));
            on_args = match props.get("onArgs") {
                Some(crate::syntax::Data::Str(s)) => vec![s.to_string()],
                Some(crate::syntax::Data::List(items, _)) => items
                    .iter()
                    .filter_map(|d| d.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
        }
    }
    if !on_this && on_args.is_empty() {
        return Ok(None);
    }
    let receiver = match on_this {
        true => Some(identity(limits, this)?),
        false => None,
    };
    let mut values = Vec::with_capacity(on_args.len());
    for a in on_args {
        let v = match args.get(&a) {
            Some(v) => Some(identity(limits, &v)?),
            None => None,
        };
        values.push((a, v));
    }
    Ok(Some(SyncKey {
        class: Rc::as_ptr(decl) as usize,
        method: m as *const crate::syntax::MethodDef as usize,
        receiver,
        args: values,
    }))
}

/// What makes two values the same for a lock: object identity,
/// otherwise the value's text (within the session's memory).
fn identity(limits: &SessionLimits, v: &Value) -> Result<Identity, Exc> {
    match as_object(v) {
        Some((o, _)) => Ok(Identity::Object(Rc::as_ptr(&o) as usize)),
        None => Ok(Identity::Text(limits.repr(v)?)),
    }
}

/// The error of a branch whose evaluator could not map a stack segment:
/// `stacker` (under the YAQL evaluator) asserts on a failed `mmap`, and a
/// coroutine's stack is one it cannot measure, so it maps segments there.
/// Any other panic goes on.
fn stack_refused(payload: Box<dyn std::any::Any + Send>) -> Exc {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    if text.contains("mmap failed") {
        super::limits::SessionLimits::no_stack()
    } else {
        std::panic::resume_unwind(payload)
    }
}

/// A green thread for `task`; `None` when no stack can be had.
fn spawn(index: usize, task: Task) -> Option<Thread> {
    let id = NEXT_TASK.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    let stack = match STACKS.with(|s| s.borrow_mut().pop()) {
        Some(stack) => stack,
        None => match DefaultStack::new(STACK_BYTES) {
            Ok(stack) => stack,
            Err(_) => return None,
        },
    };
    let bounds = super::stack::Bounds {
        limit: stack.limit().get(),
        top: stack.base().get(),
    };
    let green = Coroutine::with_stack(stack, move |y: &Yielder<(), ()>, ()| {
        CURRENT.with(|c| c.set(y as *const _));
        super::stack::set_bounds(bounds);
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(task))
            .unwrap_or_else(|p| Err(stack_refused(p)))
    });
    Some(Thread {
        id,
        green,
        bounds,
        index,
    })
}
