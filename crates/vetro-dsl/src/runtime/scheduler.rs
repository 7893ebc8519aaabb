//! What the green threads of a session (`green.rs`) share: the frames of
//! stopped threads, which thread started which, and the `Synchronize` locks.

use super::frames::{FlowFrames, LiveFrame};
use super::green::SyncKey;
use super::types::Object;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// The bookkeeping of a session's green threads.
#[derive(Default)]
pub(super) struct Scheduler {
    /// Frames of parked green threads, by thread id (GC roots).
    parked: RefCell<HashMap<u64, FlowFrames>>,
    /// Held `Synchronize` locks: key -> (green thread, times entered).
    sync_locks: RefCell<ahash::AHashMap<SyncKey, (u64, usize)>>,
    /// The green thread that started each running one.
    task_parents: RefCell<HashMap<u64, u64>>,
}

impl Scheduler {
    /// Thread `id`, started by thread `parent`, runs.
    pub(super) fn started(&self, id: u64, parent: u64) {
        self.task_parents.borrow_mut().insert(id, parent);
    }

    /// Green threads started and not ended.
    pub(super) fn live(&self) -> usize {
        self.task_parents.borrow().len()
    }

    /// Thread `id` has ended.
    pub(super) fn finished(&self, id: u64) {
        self.parked.borrow_mut().remove(&id);
        self.task_parents.borrow_mut().remove(&id);
    }

    /// Keep the frames of thread `id` while it is stopped.
    pub(super) fn park(&self, id: u64, frames: FlowFrames) {
        self.parked.borrow_mut().insert(id, frames);
    }

    /// The frames thread `id` stopped with (none the first time it runs).
    pub(super) fn unpark(&self, id: u64) -> FlowFrames {
        self.parked.borrow_mut().remove(&id).unwrap_or_default()
    }

    /// Contexts and receivers of the stopped threads (GC roots).
    pub(super) fn parked_roots(&self) -> (Vec<LiveFrame>, Vec<Rc<Object>>) {
        let (mut frames, mut receivers) = (Vec::new(), Vec::new());
        for parked in self.parked.borrow().values() {
            frames.extend(parked.live.iter().cloned());
            receivers.extend(parked.receivers.iter().cloned());
        }
        (frames, receivers)
    }

    /// The thread holding lock `key`, if one does.
    pub(super) fn lock_holder(&self, key: &SyncKey) -> Option<u64> {
        self.sync_locks.borrow().get(key).map(|(t, _)| *t)
    }

    /// Thread `me` enters lock `key` (once more if it holds it already).
    pub(super) fn hold(&self, key: &SyncKey, me: u64) {
        let mut locks = self.sync_locks.borrow_mut();
        let entry = locks.entry(key.clone()).or_insert((me, 0));
        entry.1 += 1;
    }

    /// Leave lock `key` once; free it when it was entered only once.
    pub(super) fn release(&self, key: &SyncKey) {
        let mut locks = self.sync_locks.borrow_mut();
        if let Some(entry) = locks.get_mut(key) {
            entry.1 -= 1;
            if entry.1 == 0 {
                locks.remove(key);
            }
        }
    }

    /// `a` is `b` or started it (directly or not).
    pub(super) fn is_ancestor(&self, a: u64, b: u64) -> bool {
        let parents = self.task_parents.borrow();
        let mut at = Some(b);
        while let Some(t) = at {
            if t == a {
                return true;
            }
            at = parents.get(&t).copied();
        }
        false
    }
}
