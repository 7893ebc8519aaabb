//! The storage of lists and dictionaries: a view of the first `len` items
//! of a buffer that several containers share. Adding to a container whose
//! view ends where the buffer's items end writes into the buffer's spare
//! room, even while other containers hold the same buffer: their views stop
//! before the new item, so they see no change. A loop that appends to a
//! list (or adds keys to a dictionary) it also keeps elsewhere is then
//! linear in time; only adding to a container that is not its buffer's
//! longest view copies its items.
//!
//! Items inside a view are never written while the buffer is shared, and a
//! shared buffer never moves (a full one is replaced by a copy with twice
//! the room), so a slice of a view stays valid while others add to the
//! buffer.

use std::cell::UnsafeCell;
use std::rc::{Rc, Weak};

/// Items written so far (the vector's `len`) with room for more (its
/// capacity), and what the container keeps beside them (`X`: a dictionary's
/// table of positions). Read only through raw pointers while shared.
struct Buf<T, X> {
    items: UnsafeCell<Vec<T>>,
    extra: UnsafeCell<X>,
}

/// A view of the first `len` items of a shared buffer.
pub(super) struct Shared<T, X = ()> {
    buf: Rc<Buf<T, X>>,
    len: usize,
}

impl<T, X> Clone for Shared<T, X> {
    fn clone(&self) -> Self {
        Shared {
            buf: self.buf.clone(),
            len: self.len,
        }
    }
}

impl<T: Clone, X: Default> Default for Shared<T, X> {
    fn default() -> Self {
        Shared::from_vec(Vec::new())
    }
}

/// The identity of a container: for a list or dictionary, its buffer and
/// the length of its view (two with the same address are the same
/// container); for a set, where it is allocated.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Address(usize, usize);

impl Address {
    /// The address of a container allocated at `p` (a set).
    pub fn of<T>(p: *const T) -> Address {
        Address(p as *const u8 as usize, usize::MAX)
    }
}

/// How [`Shared::reserve`] made room.
#[derive(PartialEq, Eq)]
pub(super) enum Room {
    /// In the same buffer: what the container keeps beside its items
    /// still describes them (a sole holder's longer buffer was cut to its
    /// view first when `cut`).
    Same { cut: bool },
    /// In a new buffer holding a copy of the view, with a default `X`.
    Copied,
}

impl<T: Clone, X: Default> Shared<T, X> {
    pub(super) fn from_vec(items: Vec<T>) -> Self {
        Shared::from_parts(items, X::default())
    }

    /// A buffer of `items` with `extra` kept beside them.
    pub(super) fn from_parts(items: Vec<T>, extra: X) -> Self {
        Shared {
            len: items.len(),
            buf: Rc::new(Buf {
                items: UnsafeCell::new(items),
                extra: UnsafeCell::new(extra),
            }),
        }
    }

    /// The view of this one's first `len` items (at most its own).
    pub(super) fn prefix(&self, len: usize) -> Self {
        Shared {
            buf: self.buf.clone(),
            len: len.min(self.len),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The items written into the buffer so far (at least `len`).
    fn written(&self) -> usize {
        // SAFETY: reads the vector's length; no mutable borrow of it lives
        // outside this module's short writes, which call no other code.
        unsafe { (*self.buf.items.get()).len() }
    }

    fn room(&self) -> usize {
        // SAFETY: as in `written`.
        unsafe { (*self.buf.items.get()).capacity() }
    }

    pub(super) fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` items are written and are neither changed
        // nor moved while this view holds the buffer (the module text); the
        // pointer is taken without borrowing the items.
        unsafe { std::slice::from_raw_parts((*self.buf.items.get()).as_ptr(), self.len) }
    }

    /// What the buffer keeps beside its items.
    pub(super) fn extra(&self) -> &X {
        // SAFETY: changed only through `&mut self` of the buffer's longest
        // view ([`Shared::extra_mut`]), never while a borrow from here lives
        // (the containers using it take no borrow beyond one call).
        unsafe { &*self.buf.extra.get() }
    }

    /// The buffer's items and extra, for the view at the end of the items
    /// (after [`Shared::reserve`]): the caller adds items at the end only
    /// and keeps the extra in step.
    pub(super) fn end_mut(&mut self) -> (&mut Vec<T>, &mut X) {
        debug_assert_eq!(self.len, self.written());
        // SAFETY: this view is the buffer's longest, so no other view sees
        // the items added; nothing else borrows the vector or the extra
        // while the caller holds these (see `extra`).
        unsafe { (&mut *self.buf.items.get(), &mut *self.buf.extra.get()) }
    }

    /// Take in the items added through [`Shared::end_mut`].
    pub(super) fn sync_len(&mut self) {
        self.len = self.written();
    }

    /// The buffer's items and extra when this view is its only holder (no
    /// weak holder either), cut to this view (`true` when something was cut).
    pub(super) fn get_mut(&mut self) -> Option<(&mut Vec<T>, &mut X, bool)> {
        let buf = Rc::get_mut(&mut self.buf)?;
        let items = buf.items.get_mut();
        let cut = items.len() > self.len;
        items.truncate(self.len);
        Some((items, buf.extra.get_mut(), cut))
    }

    /// Make this view the end of its buffer's items with room for `n` more.
    pub(super) fn reserve(&mut self, n: usize) -> Room {
        let at_end = self.len == self.written();
        if at_end && self.room() - self.len >= n {
            return Room::Same { cut: false };
        }
        if let Some((items, _, cut)) = self.get_mut() {
            items.reserve(n);
            return Room::Same { cut };
        }
        let room = self.len.saturating_mul(2).max(self.len + n).max(4);
        let mut items = Vec::with_capacity(room);
        items.extend_from_slice(self.as_slice());
        *self = Shared::from_vec(items);
        Room::Copied
    }

    /// A sole copy of this view (copy on write), unless it is one already.
    pub(super) fn unshare(&mut self) -> Room {
        if Rc::get_mut(&mut self.buf).is_some() {
            let cut = self.get_mut().is_some_and(|(_, _, cut)| cut);
            return Room::Same { cut };
        }
        *self = Shared::from_vec(self.as_slice().to_vec());
        Room::Copied
    }

    /// The items as a vector, taken without copying when nothing else
    /// holds them.
    pub(super) fn into_vec(mut self) -> Vec<T> {
        match self.get_mut() {
            Some((items, _, _)) => std::mem::take(items),
            None => self.as_slice().to_vec(),
        }
    }

    pub(super) fn ptr_eq(a: &Self, b: &Self) -> bool {
        Rc::ptr_eq(&a.buf, &b.buf) && a.len == b.len
    }

    pub(super) fn address(&self) -> Address {
        Address(self.buffer_address(), self.len)
    }

    pub(super) fn buffer_address(&self) -> usize {
        Rc::as_ptr(&self.buf) as *const u8 as usize
    }

    /// How many views hold this one's buffer (this one included).
    pub(super) fn holders(&self) -> usize {
        Rc::strong_count(&self.buf)
    }

    pub(super) fn capacity(&self) -> usize {
        self.room()
    }

    pub(super) fn downgrade(&self) -> WeakShared<T, X> {
        WeakShared {
            buf: Rc::downgrade(&self.buf),
            len: self.len,
        }
    }

    /// Every item of the buffer, this view's and beyond, when nothing else
    /// holds it even weakly: for releasing it.
    pub(super) fn sole_items(&mut self) -> Option<&mut Vec<T>> {
        if Rc::strong_count(&self.buf) != 1 {
            return None;
        }
        if Rc::weak_count(&self.buf) > 0 {
            // A weak holder only (a memo's): move the items out first.
            let sole = std::mem::replace(self, Shared::from_vec(Vec::new()));
            if let Ok(buf) = Rc::try_unwrap(sole.buf) {
                *self = Shared::from_vec(buf.items.into_inner());
            }
        }
        Rc::get_mut(&mut self.buf).map(|b| b.items.get_mut())
    }
}

/// A [`Shared`] view that does not keep its items alive.
pub(super) struct WeakShared<T, X> {
    buf: Weak<Buf<T, X>>,
    len: usize,
}

impl<T, X> WeakShared<T, X> {
    pub(super) fn upgrade(&self) -> Option<Shared<T, X>> {
        self.buf.upgrade().map(|buf| Shared { buf, len: self.len })
    }

    pub(super) fn is_dead(&self) -> bool {
        self.buf.strong_count() == 0
    }
}
