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
//!
//! A buffer is one block: a head (the counts of its holders, how many
//! items are written and how many fit, what the container keeps beside
//! them) followed by its items, so a container is one allocation.

use std::alloc::{self, Layout};
use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

/// The start of a buffer's block; the items follow it (see [`layout`]).
struct Head<X> {
    /// Views holding the buffer.
    strong: Cell<u32>,
    /// Weak views, plus one while any view holds the buffer.
    weak: Cell<u32>,
    /// Items written so far, from the first.
    written: Cell<u32>,
    /// Items the block has room for.
    room: u32,
    /// What the container keeps beside its items (a dictionary's keys or
    /// table of positions). Read only through raw pointers while shared.
    extra: UnsafeCell<X>,
}

/// The block of a buffer with room for `room` items, and where its items
/// start.
fn layout<T, X>(room: usize) -> (Layout, usize) {
    let items = Layout::array::<T>(room).expect("capacity overflow");
    let (block, offset) = Layout::new::<Head<X>>()
        .extend(items)
        .expect("capacity overflow");
    (block.pad_to_align(), offset)
}

/// One more holder in `count`; the process stops rather than let it wrap
/// (as `Rc` does).
fn count_up(count: &Cell<u32>) {
    let n = count.get().checked_add(1);
    count.set(n.unwrap_or_else(|| std::process::abort()));
}

/// A view of the first `len` items of a shared buffer.
pub(super) struct Shared<T, X = ()> {
    head: NonNull<Head<X>>,
    len: usize,
    _items: PhantomData<T>,
}

impl<T, X> Shared<T, X> {
    fn head(&self) -> &Head<X> {
        // SAFETY: the block lives while this view holds it.
        unsafe { self.head.as_ref() }
    }

    /// The items written into the buffer so far (at least `len`).
    fn written(&self) -> usize {
        self.head().written.get() as usize
    }

    fn room(&self) -> usize {
        self.head().room as usize
    }

    /// The first item's place in the block.
    fn items(&self) -> *mut T {
        let offset = layout::<T, X>(0).1;
        // SAFETY: the items start `offset` bytes into the block.
        unsafe { self.head.as_ptr().cast::<u8>().add(offset).cast() }
    }

    /// A block with room for `room` items, none written, held by one view
    /// of length 0.
    fn alloc(room: usize, extra: X) -> Self {
        let room32 = u32::try_from(room).expect("capacity overflow");
        let (block, _) = layout::<T, X>(room);
        // SAFETY: the layout has the head's non-zero size.
        let p = unsafe { alloc::alloc(block) }.cast::<Head<X>>();
        let Some(head) = NonNull::new(p) else {
            alloc::handle_alloc_error(block)
        };
        // SAFETY: a fresh block of the head's layout.
        unsafe {
            head.as_ptr().write(Head {
                strong: Cell::new(1),
                weak: Cell::new(1),
                written: Cell::new(0),
                room: room32,
                extra: UnsafeCell::new(extra),
            })
        };
        Shared {
            head,
            len: 0,
            _items: PhantomData,
        }
    }

    /// Whether this view is the buffer's only holder, weak ones included.
    fn is_sole(&self) -> bool {
        self.head().strong.get() == 1 && self.head().weak.get() == 1
    }

    /// Drop the items written past this view (a sole holder's); `true`
    /// when there were any.
    fn cut(&mut self) -> bool {
        let written = self.written();
        if written == self.len {
            return false;
        }
        self.head().written.set(self.len as u32);
        // SAFETY: the items from `len` to `written` are written, and no
        // view sees them (this one is the only holder and shorter).
        unsafe {
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(
                self.items().add(self.len),
                written - self.len,
            ))
        };
        true
    }

    /// Make room for at least `n` more items than this sole holder's view,
    /// moving the block (the items past the view are cut first).
    fn grow(&mut self, n: usize) {
        let room = self.room();
        let want = self.len.checked_add(n).expect("capacity overflow");
        if want <= room {
            return;
        }
        let new_room = want.max(room.saturating_mul(2)).max(4);
        let (old, _) = layout::<T, X>(room);
        let (new, _) = layout::<T, X>(new_room);
        let room32 = u32::try_from(new_room).expect("capacity overflow");
        // SAFETY: the block was allocated with `old`; the new size keeps
        // its alignment. Only this view points at it.
        let p = unsafe { alloc::realloc(self.head.as_ptr().cast(), old, new.size()) };
        let Some(head) = NonNull::new(p.cast::<Head<X>>()) else {
            alloc::handle_alloc_error(new)
        };
        self.head = head;
        // SAFETY: the head moved with the block; this view is its only one.
        unsafe { (*head.as_ptr()).room = room32 };
    }
}

impl<T, X> Drop for Shared<T, X> {
    fn drop(&mut self) {
        let head = self.head();
        let strong = head.strong.get() - 1;
        head.strong.set(strong);
        if strong > 0 {
            return;
        }
        // SAFETY: the last view: the written items and the extra are
        // dropped once; weak views see `strong` at 0 and read neither.
        unsafe {
            ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.items(), self.written()));
            ptr::drop_in_place(self.head().extra.get());
        }
        release_weak::<T, X>(self.head);
    }
}

/// One weak count less for the block at `head` (the views' shared one or a
/// weak view's), freeing the block after the last.
fn release_weak<T, X>(head: NonNull<Head<X>>) {
    // SAFETY: the block lives while its weak count is positive.
    let h = unsafe { head.as_ref() };
    let weak = h.weak.get() - 1;
    h.weak.set(weak);
    if weak == 0 {
        let (block, _) = layout::<T, X>(h.room as usize);
        // SAFETY: allocated with this layout; nothing refers to it now.
        unsafe { alloc::dealloc(head.as_ptr().cast(), block) };
    }
}

impl<T, X> Clone for Shared<T, X> {
    fn clone(&self) -> Self {
        count_up(&self.head().strong);
        Shared {
            head: self.head,
            len: self.len,
            _items: PhantomData,
        }
    }
}

impl<T: Clone, X: Default> Default for Shared<T, X> {
    fn default() -> Self {
        Shared::alloc(0, X::default())
    }
}

/// Items of a buffer written through a view that may write them: its
/// slice, and adding at the end within the room made for it.
pub(super) struct Items<'a, T> {
    ptr: *mut T,
    written: &'a Cell<u32>,
    room: usize,
    _items: PhantomData<&'a mut [T]>,
}

impl<'a, T> Items<'a, T> {
    /// Add `v` after the last item.
    ///
    /// # Panics
    /// When there is no room (the caller reserves it first).
    pub(super) fn push(&mut self, v: T) {
        let n = self.len();
        assert!(n < self.room, "room reserved");
        // SAFETY: inside the block's room, past the written items.
        unsafe { self.ptr.add(n).write(v) };
        self.written.set(n as u32 + 1);
    }

    /// The items, for as long as this borrow of them lasts.
    pub(super) fn into_slice(self) -> &'a mut [T] {
        // SAFETY: as in `deref_mut`, for the borrow this was made from.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.written.get() as usize) }
    }

    /// Take the last item.
    pub(super) fn pop(&mut self) -> Option<T> {
        let n = self.len().checked_sub(1)?;
        self.written.set(n as u32);
        // SAFETY: item `n` was written and is no longer counted.
        Some(unsafe { self.ptr.add(n).read() })
    }
}

impl<T> std::ops::Deref for Items<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the first `written` items are written.
        unsafe { std::slice::from_raw_parts(self.ptr, self.written.get() as usize) }
    }
}

impl<T> std::ops::DerefMut for Items<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; the caller's view may write them.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.written.get() as usize) }
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

    /// A buffer of `items` with `extra` kept beside them, with the
    /// vector's room.
    pub(super) fn from_parts(mut items: Vec<T>, extra: X) -> Self {
        let room = items.capacity();
        Shared::moved_from(&mut items, 0, room, extra)
    }

    /// A buffer of the items of `items` from `start` on, moved out of it,
    /// with `extra` kept beside them and no room to spare.
    pub(super) fn from_tail(items: &mut Vec<T>, start: usize, extra: X) -> Self {
        let n = items.len() - start;
        Shared::moved_from(items, start, n, extra)
    }

    /// A buffer with room for `room` items holding those of `items` from
    /// `start` on, moved out of it.
    fn moved_from(items: &mut Vec<T>, start: usize, room: usize, extra: X) -> Self {
        let n = items.len() - start;
        let mut s = Shared::alloc(room.max(n), extra);
        // SAFETY: the `n` items are moved into the fresh block's room and
        // no longer counted by the vector.
        unsafe {
            ptr::copy_nonoverlapping(items.as_ptr().add(start), s.items(), n);
            items.set_len(start);
        }
        s.head().written.set(n as u32);
        s.len = n;
        s
    }

    /// An empty buffer with room for `n` items.
    pub(super) fn with_room(n: usize, extra: X) -> Self {
        Shared::alloc(n, extra)
    }

    /// A buffer holding a copy of this view's items, with room for `room`.
    fn copy(&self, room: usize) -> Self {
        let mut s = Shared::alloc(room.max(self.len), X::default());
        let mut to = s.items_mut();
        for x in self.as_slice() {
            to.push(x.clone());
        }
        s.len = self.len;
        s
    }

    /// The view of this one's first `len` items (at most its own).
    pub(super) fn prefix(&self, len: usize) -> Self {
        let mut s = self.clone();
        s.len = len.min(self.len);
        s
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` items are written and are neither changed
        // nor moved while this view holds the buffer (the module text).
        unsafe { std::slice::from_raw_parts(self.items(), self.len) }
    }

    /// What the buffer keeps beside its items.
    pub(super) fn extra(&self) -> &X {
        // SAFETY: changed only through `&mut self` of the buffer's longest
        // view ([`Shared::end_mut`]), never while a borrow from here lives
        // (the containers using it take no borrow beyond one call).
        unsafe { &*self.head().extra.get() }
    }

    /// Every written item of the buffer, to write (the caller's view may).
    fn items_mut(&mut self) -> Items<'_, T> {
        Items {
            ptr: self.items(),
            written: &self.head().written,
            room: self.room(),
            _items: PhantomData,
        }
    }

    /// The buffer's items and extra, for the view at the end of the items
    /// (after [`Shared::reserve`]): the caller adds items at the end only
    /// and keeps the extra in step.
    pub(super) fn end_mut(&mut self) -> (Items<'_, T>, &mut X) {
        debug_assert_eq!(self.len, self.written());
        let extra = self.head().extra.get();
        // SAFETY: this view is the buffer's longest, so no other view sees
        // the items added; nothing else borrows the extra while the caller
        // holds it (see `extra`), and the items are another part of the
        // block.
        (self.items_mut(), unsafe { &mut *extra })
    }

    /// Take in the items added through [`Shared::end_mut`].
    pub(super) fn sync_len(&mut self) {
        self.len = self.written();
    }

    /// The buffer's items and extra when this view is its only holder (no
    /// weak holder either), cut to this view (`true` when something was cut).
    pub(super) fn get_mut(&mut self) -> Option<(Items<'_, T>, &mut X, bool)> {
        if !self.is_sole() {
            return None;
        }
        let cut = self.cut();
        let (items, extra) = self.end_mut();
        Some((items, extra, cut))
    }

    /// Make this view the end of its buffer's items with room for `n` more.
    pub(super) fn reserve(&mut self, n: usize) -> Room {
        let at_end = self.len == self.written();
        if at_end && self.room() - self.len >= n {
            return Room::Same { cut: false };
        }
        if self.is_sole() {
            let cut = self.cut();
            self.grow(n);
            return Room::Same { cut };
        }
        let room = self.len.saturating_mul(2).max(self.len + n).max(4);
        *self = self.copy(room);
        Room::Copied
    }

    /// A sole copy of this view (copy on write), unless it is one already.
    pub(super) fn unshare(&mut self) -> Room {
        if self.is_sole() {
            return Room::Same { cut: self.cut() };
        }
        *self = self.copy(self.len);
        Room::Copied
    }

    /// The items as a vector, taken without copying them when nothing
    /// else holds them.
    pub(super) fn into_vec(mut self) -> Vec<T> {
        if !self.is_sole() {
            return self.as_slice().to_vec();
        }
        self.cut();
        let mut v = Vec::with_capacity(self.len);
        // SAFETY: the items move into the vector's room and are no longer
        // counted by the block, which drops only its extra.
        unsafe {
            ptr::copy_nonoverlapping(self.items(), v.as_mut_ptr(), self.len);
            v.set_len(self.len);
        }
        self.head().written.set(0);
        v
    }

    pub(super) fn ptr_eq(a: &Self, b: &Self) -> bool {
        a.head == b.head && a.len == b.len
    }

    pub(super) fn address(&self) -> Address {
        Address(self.buffer_address(), self.len)
    }

    pub(super) fn buffer_address(&self) -> usize {
        self.head.as_ptr() as usize
    }

    /// How many views hold this one's buffer (this one included).
    pub(super) fn holders(&self) -> usize {
        self.head().strong.get() as usize
    }

    /// The bytes of the buffer's block.
    pub(super) fn block_bytes(&self) -> usize {
        layout::<T, X>(self.room()).0.size()
    }

    pub(super) fn downgrade(&self) -> WeakShared<T, X> {
        count_up(&self.head().weak);
        WeakShared {
            head: self.head,
            len: self.len,
            _items: PhantomData,
        }
    }

    /// Every item of the buffer, this view's and beyond, when nothing else
    /// holds it even weakly: for releasing it.
    pub(super) fn sole_items(&mut self) -> Option<&mut [T]> {
        if self.head().strong.get() != 1 {
            return None;
        }
        if !self.is_sole() {
            // A weak holder only (a memo's): move the items out first.
            let written = self.written();
            let mut moved = Shared::alloc(self.room(), X::default());
            // SAFETY: the items move to the new block and are no longer
            // counted by the old one, whose extra moves too (a default
            // left in its place).
            unsafe {
                ptr::copy_nonoverlapping(self.items(), moved.items(), written);
                self.head().written.set(0);
                ptr::swap(self.head().extra.get(), moved.head().extra.get());
            }
            moved.head().written.set(written as u32);
            moved.len = self.len;
            *self = moved;
        }
        let written = self.written();
        // SAFETY: the sole holder's written items.
        Some(unsafe { std::slice::from_raw_parts_mut(self.items(), written) })
    }
}

/// A [`Shared`] view that does not keep its items alive.
pub(super) struct WeakShared<T, X> {
    head: NonNull<Head<X>>,
    len: usize,
    _items: PhantomData<T>,
}

impl<T, X> WeakShared<T, X> {
    fn head(&self) -> &Head<X> {
        // SAFETY: the block lives while a weak view holds it.
        unsafe { self.head.as_ref() }
    }

    pub(super) fn upgrade(&self) -> Option<Shared<T, X>> {
        if self.is_dead() {
            return None;
        }
        count_up(&self.head().strong);
        Some(Shared {
            head: self.head,
            len: self.len,
            _items: PhantomData,
        })
    }

    pub(super) fn is_dead(&self) -> bool {
        self.head().strong.get() == 0
    }
}

impl<T, X> Drop for WeakShared<T, X> {
    fn drop(&mut self) {
        release_weak::<T, X>(self.head);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// Items that count their copies: every one dropped once, none leaked.
    fn probe() -> Rc<()> {
        Rc::new(())
    }

    #[test]
    fn items_are_dropped_once_whatever_the_holders() {
        let p = probe();
        {
            let mut a: Shared<Rc<()>> = Shared::with_room(4, ());
            let (mut items, _) = a.end_mut();
            items.push(p.clone());
            items.push(p.clone());
            a.sync_len();
            let b = a.clone();
            // `a` is at the end with room: written in place.
            assert!(a.reserve(1) == Room::Same { cut: false });
            a.end_mut().0.push(p.clone());
            a.sync_len();
            let weak = a.downgrade();
            let mut c = b.clone();
            // `c` is behind the end: adding copies it.
            assert!(c.reserve(1) == Room::Copied);
            c.end_mut().0.push(p.clone());
            c.sync_len();
            assert_eq!((a.len(), b.len(), c.len()), (3, 2, 3));
            assert_eq!(Rc::strong_count(&p), 1 + 3 + 3);
            drop(a);
            assert!(weak.upgrade().is_some_and(|x| x.len() == 3));
            drop(b);
            assert!(weak.is_dead());
        }
        assert_eq!(Rc::strong_count(&p), 1);
    }

    #[test]
    fn a_sole_holder_grows_cuts_and_gives_its_items_away() {
        let p = probe();
        let mut a: Shared<Rc<()>> = Shared::with_room(0, ());
        for _ in 0..100 {
            a.reserve(1);
            a.end_mut().0.push(p.clone());
            a.sync_len();
        }
        let short = a.prefix(10);
        drop(a);
        let mut short = short;
        // The sole holder of a longer buffer: the items past it go.
        assert!(short.unshare() == Room::Same { cut: true });
        assert_eq!(Rc::strong_count(&p), 11);
        let mut tail = vec![p.clone(); 5];
        let moved: Shared<Rc<()>> = Shared::from_tail(&mut tail, 2, ());
        assert_eq!((tail.len(), moved.len()), (2, 3));
        let v = short.into_vec();
        assert_eq!(v.len(), 10);
        drop((v, tail, moved));
        assert_eq!(Rc::strong_count(&p), 1);
    }

    #[test]
    fn releasing_a_buffer_held_weakly_moves_its_items() {
        let p = probe();
        let mut a: Shared<Rc<()>, Vec<Rc<()>>> =
            Shared::from_parts(vec![p.clone()], vec![p.clone()]);
        let weak = a.downgrade();
        let items = a.sole_items().expect("one holder");
        assert_eq!(items.len(), 1);
        assert_eq!(a.extra().len(), 1);
        assert!(weak.is_dead());
        drop((a, weak));
        assert_eq!(Rc::strong_count(&p), 1);
    }
}
