//! The call stack of a session: the running MuranoPL methods of the flow
//! on the executor, for stack traces, the call depth limit and the GC (the
//! receivers and variables of running methods are roots).
//!
//! Green threads (`green.rs`) share one executor: when a thread stops, its
//! frames above the point where it started are taken off ([`CallStack::split_off`])
//! and put back when it resumes.

use super::types::{Class, Exc, Frame, Object};
use crate::syntax::MethodDef;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::Context;

/// A running method: its context, declaring class and definition.
pub(super) type LiveFrame = (Rc<Context>, Rc<Class>, Arc<MethodDef>);

/// An active method call (for stack traces).
pub(super) struct StackEntry {
    /// The class declaring the method (its name and file).
    pub(super) class: Rc<Class>,
    pub(super) method: Arc<MethodDef>,
    pub(super) line: Cell<u32>,
    pub(super) col: Cell<u32>,
    /// The statement running (none before the first).
    pub(super) instr: RefCell<Option<Arc<str>>>,
}

/// The running methods of the flow on the executor.
#[derive(Default)]
pub(super) struct CallStack {
    entries: RefCell<Vec<StackEntry>>,
    /// Nested method calls of the flow (see `call::MAX_DEPTH`).
    depth: Cell<usize>,
    /// Receivers of running methods (GC roots).
    receivers: RefCell<Vec<Rc<Object>>>,
    /// Contexts of running methods with their method (variables are GC roots).
    live: RefCell<Vec<LiveFrame>>,
}

/// How far a call stack reaches (where a green thread's frames start).
#[derive(Clone, Copy)]
pub(super) struct Mark {
    entries: usize,
    live: usize,
    receivers: usize,
    depth: usize,
}

/// The frames of a stopped flow, taken off the call stack.
#[derive(Default)]
pub(super) struct FlowFrames {
    entries: Vec<StackEntry>,
    depth: usize,
    pub(super) live: Vec<LiveFrame>,
    pub(super) receivers: Vec<Rc<Object>>,
}

impl CallStack {
    /// Nested method calls of the running flow.
    pub(super) fn depth(&self) -> usize {
        self.depth.get()
    }

    /// A method starts: its trace entry, its receiver and its context.
    pub(super) fn enter(&self, entry: StackEntry, receiver: Option<&Rc<Object>>, frame: LiveFrame) {
        self.entries.borrow_mut().push(entry);
        self.depth.set(self.depth.get() + 1);
        if let Some(o) = receiver {
            self.receivers.borrow_mut().push(o.clone());
        }
        self.live.borrow_mut().push(frame);
    }

    /// The method [`CallStack::enter`] started last ends.
    pub(super) fn leave(&self, had_receiver: bool) {
        self.live.borrow_mut().pop();
        if had_receiver {
            self.receivers.borrow_mut().pop();
        }
        self.depth.set(self.depth.get() - 1);
        self.entries.borrow_mut().pop();
    }

    /// Record the statement the innermost method runs now.
    pub(super) fn mark_statement(&self, line: u32, col: u32, text: &Arc<str>) {
        if let Some(top) = self.entries.borrow().last() {
            top.line.set(line);
            top.col.set(col);
            *top.instr.borrow_mut() = Some(text.clone());
        }
    }

    /// The class declaring the innermost running method.
    pub(super) fn current_class(&self) -> Option<String> {
        self.entries.borrow().last().map(|s| s.class.name.clone())
    }

    /// `e` with the current stack trace when it is a fresh native error.
    pub(super) fn with_trace(&self, e: Exc) -> Exc {
        match e {
            Exc::Native(n, f) if f.is_empty() => Exc::Native(n, Rc::new(self.trace())),
            other => other,
        }
    }

    /// The stack trace, innermost call first.
    pub(super) fn trace(&self) -> Vec<Frame> {
        self.entries
            .borrow()
            .iter()
            .rev()
            .map(|s| Frame {
                instruction: s.instr.borrow().as_deref().unwrap_or_default().to_string(),
                file: s.class.def.file_name.clone(),
                line: s.line.get(),
                column: s.col.get(),
                method: s.method.name.clone(),
                class: s.class.name.clone(),
            })
            .collect()
    }

    /// Receivers of the running methods.
    pub(super) fn receivers(&self) -> Vec<Rc<Object>> {
        self.receivers.borrow().clone()
    }

    /// The context of the innermost running method.
    pub(super) fn top_context(&self) -> Option<Rc<Context>> {
        self.live.borrow().last().map(|(ctx, _, _)| ctx.clone())
    }

    /// Contexts of the running methods.
    pub(super) fn live_frames(&self) -> Vec<LiveFrame> {
        self.live.borrow().clone()
    }

    pub(super) fn mark(&self) -> Mark {
        Mark {
            entries: self.entries.borrow().len(),
            live: self.live.borrow().len(),
            receivers: self.receivers.borrow().len(),
            depth: self.depth.get(),
        }
    }

    /// Take the frames above `at` off the stack (their flow stops).
    pub(super) fn split_off(&self, at: Mark) -> FlowFrames {
        let live = self.live.borrow_mut().split_off(at.live);
        let receivers = self.receivers.borrow_mut().split_off(at.receivers);
        let entries = self.entries.borrow_mut().split_off(at.entries);
        let depth = self.depth.get() - at.depth;
        self.depth.set(at.depth);
        FlowFrames {
            entries,
            depth,
            live,
            receivers,
        }
    }

    /// Put a stopped flow's frames back above `at` (the flow resumes).
    pub(super) fn restore(&self, at: Mark, f: FlowFrames) {
        self.live.borrow_mut().extend(f.live);
        self.receivers.borrow_mut().extend(f.receivers);
        self.entries.borrow_mut().extend(f.entries);
        self.depth.set(at.depth + f.depth);
    }
}
