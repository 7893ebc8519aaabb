//! The string of the value model: up to [`Str::INLINE`] bytes are held in
//! the value itself, longer text in one reference-counted allocation that
//! clones share. Most strings of a document (names, cities, tags, keys)
//! are short, so reading one allocates nothing and copying one is a copy of
//! two words.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Shared text: the address of an `Rc<str>`'s bytes and their length. The
/// length is kept little-endian whatever the platform, so the last byte of
/// the value is its most significant byte, zero for any real length.
#[derive(Clone, Copy)]
#[repr(C)]
struct Heap {
    ptr: *const u8,
    len_le: u64,
}

#[repr(C)]
union Repr {
    heap: Heap,
    /// Inline text: the bytes first, the last byte [`TAG`] plus the length.
    bytes: [u8; 16],
}

/// Marks inline text in the last byte (never set in a heap length's top byte).
const TAG: u8 = 0x80;
const LAST: usize = 15;

/// An immutable string, cheap to clone (see the module text).
pub struct Str(Repr);

impl Str {
    /// Text this long or shorter is held inline.
    pub const INLINE: usize = 15;

    /// The empty string.
    pub const fn new() -> Str {
        let mut bytes = [0u8; 16];
        bytes[LAST] = TAG;
        Str(Repr { bytes })
    }

    /// Short text, its bytes gathered in registers by a few word reads
    /// (copying them into a buffer byte by byte and reading it back whole
    /// stalls the processor at each string made).
    #[inline]
    fn inline(s: &str) -> Str {
        let b = s.as_bytes();
        let n = b.len();
        debug_assert!(n <= Self::INLINE);
        // Two reads that overlap when the text is shorter than both: the
        // second, shifted down, brings the bytes past the first's.
        let word = if n >= 8 {
            let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
            let hi = u64::from_le_bytes(b[n - 8..].try_into().expect("8 bytes"));
            let hi = hi.checked_shr(8 * (16 - n) as u32).unwrap_or(0);
            u128::from(lo) | u128::from(hi) << 64
        } else if n >= 4 {
            let lo = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
            let hi = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes"));
            let hi = hi.checked_shr(8 * (8 - n) as u32).unwrap_or(0);
            u128::from(lo) | u128::from(hi) << 32
        } else {
            b.iter()
                .enumerate()
                .fold(0, |w, (i, &c)| w | u128::from(c) << (8 * i))
        };
        let word = word | u128::from(TAG | n as u8) << (8 * LAST);
        Str(Repr {
            bytes: word.to_le_bytes(),
        })
    }

    /// Longer text, in an allocation of its own.
    fn shared(s: &str) -> Str {
        Str::heap(Rc::from(s))
    }

    fn heap(rc: Rc<str>) -> Str {
        // Every byte written (zero first): the words compare as bytes.
        let mut repr = Repr { bytes: [0; 16] };
        repr.heap.len_le = (rc.len() as u64).to_le();
        repr.heap.ptr = Rc::into_raw(rc) as *const u8;
        Str(repr)
    }

    fn is_inline(&self) -> bool {
        // SAFETY: the last byte is written in both forms (the top byte of
        // the heap length).
        unsafe { self.0.bytes[LAST] & TAG != 0 }
    }

    /// The heap text as the `Rc` it was made from (not to be dropped: the
    /// caller owns no count).
    fn heap_rc(&self) -> Option<std::mem::ManuallyDrop<Rc<str>>> {
        if self.is_inline() {
            return None;
        }
        // SAFETY: not inline, so `heap` was written from `Rc::into_raw` of
        // a string of this length, which this value still holds.
        unsafe {
            let h = self.0.heap;
            let raw = std::ptr::slice_from_raw_parts(h.ptr, u64::from_le(h.len_le) as usize)
                as *const str;
            Some(std::mem::ManuallyDrop::new(Rc::from_raw(raw)))
        }
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: inline bytes and heap text are both copies of a `str`'s
        // bytes, of the length kept beside them; the heap text lives as
        // long as this value holds its count.
        unsafe {
            let bytes = if self.is_inline() {
                let n = (self.0.bytes[LAST] & !TAG) as usize;
                std::slice::from_raw_parts(self.0.bytes.as_ptr(), n)
            } else {
                let h = self.0.heap;
                std::slice::from_raw_parts(h.ptr, u64::from_le(h.len_le) as usize)
            };
            std::str::from_utf8_unchecked(bytes)
        }
    }

    /// The text as an `Rc<str>` (shared when it is held on the heap).
    pub fn to_rc(&self) -> Rc<str> {
        match self.heap_rc() {
            Some(rc) => Rc::clone(&rc),
            None => Rc::from(self.as_str()),
        }
    }

    /// Whether `a` and `b` hold the same text in the same place (clones of
    /// one string); equal short strings are always the same.
    pub fn ptr_eq(a: &Str, b: &Str) -> bool {
        // SAFETY: all 16 bytes are written in both forms.
        unsafe { a.0.bytes == b.0.bytes }
    }
}

impl Default for Str {
    fn default() -> Str {
        Str::new()
    }
}

impl Clone for Str {
    #[inline]
    fn clone(&self) -> Str {
        if let Some(rc) = self.heap_rc() {
            std::mem::forget(Rc::clone(&rc));
        }
        // SAFETY: a copy of the words; the heap count was raised above.
        Str(unsafe { std::ptr::read(&self.0) })
    }
}

impl Drop for Str {
    #[inline]
    fn drop(&mut self) {
        if let Some(rc) = self.heap_rc() {
            drop(std::mem::ManuallyDrop::into_inner(rc));
        }
    }
}

impl std::ops::Deref for Str {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Str {
    #[inline]
    fn from(s: &str) -> Str {
        if s.len() <= Str::INLINE {
            Str::inline(s)
        } else {
            Str::shared(s)
        }
    }
}

impl From<String> for Str {
    fn from(s: String) -> Str {
        if s.len() <= Str::INLINE {
            Str::inline(&s)
        } else {
            Str::heap(Rc::from(s))
        }
    }
}

impl From<Rc<str>> for Str {
    fn from(s: Rc<str>) -> Str {
        if s.len() <= Str::INLINE {
            Str::inline(&s)
        } else {
            Str::heap(s)
        }
    }
}

impl From<&Rc<str>> for Str {
    fn from(s: &Rc<str>) -> Str {
        Str::from(Rc::clone(s))
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Str {
        Str::from(s.as_str())
    }
}

impl From<Str> for Rc<str> {
    fn from(s: Str) -> Rc<str> {
        s.to_rc()
    }
}

impl From<Str> for String {
    fn from(s: Str) -> String {
        s.as_str().to_owned()
    }
}

impl PartialEq for Str {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        Str::ptr_eq(self, other) || self.as_str() == other.as_str()
    }
}

impl Eq for Str {}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialOrd for Str {
    fn partial_cmp(&self, other: &Str) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Str {
    fn cmp(&self, other: &Str) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Str {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_inline_and_long_text_shared() {
        for text in [
            "",
            "a",
            "fifteen bytes!!",
            "sixteen bytes!!!",
            &"x".repeat(1000),
        ] {
            let s = Str::from(text);
            assert_eq!(&*s, text);
            assert_eq!(s.is_inline(), text.len() <= Str::INLINE);
            let c = s.clone();
            assert_eq!(c, s);
            assert!(Str::ptr_eq(&c, &s));
            drop(s);
            assert_eq!(&*c, text);
            assert_eq!(&*c.to_rc(), text);
            assert_eq!(&*Str::from(c.to_rc()), text);
        }
        let long = Str::from("a string longer than fifteen bytes");
        let rc = long.to_rc();
        assert_eq!(Rc::strong_count(&rc), 2);
        drop(long);
        assert_eq!(Rc::strong_count(&rc), 1);
        // Multi-byte text at the inline bound.
        let s = Str::from("ééééééé€");
        assert_eq!(s.len(), 17);
        assert_eq!(&*s, "ééééééé€");
        let (ab, b) = (Str::from("ab"), Str::from(String::from("b")));
        assert!(ab < b && ab != b && ab == ab.clone());
    }

    /// Inline text of every length, made from word reads, holds its bytes
    /// and compares and hashes as the same text made another way does.
    #[test]
    fn inline_text_of_every_length_keeps_its_bytes() {
        use std::hash::BuildHasher;
        let hasher = std::collections::hash_map::RandomState::new();
        let source = "0123456789abcdefé€";
        for start in 0..3 {
            for end in start..=source.len() {
                let Some(text) = source.get(start..end) else {
                    continue;
                };
                let s = Str::from(text);
                assert_eq!(&*s, text);
                assert_eq!(s.len(), text.len());
                assert_eq!(s.is_inline(), text.len() <= Str::INLINE);
                if text.len() <= Str::INLINE {
                    // The layout the type documents: the bytes, zeros,
                    // and the tag with the length last.
                    let mut bytes = [0u8; 16];
                    bytes[..text.len()].copy_from_slice(text.as_bytes());
                    bytes[LAST] = TAG | text.len() as u8;
                    // SAFETY: inline text writes all 16 bytes.
                    assert_eq!(unsafe { s.0.bytes }, bytes, "{text:?}");
                }
                let other = Str::from(Rc::<str>::from(text));
                assert_eq!(s, other);
                assert_eq!(hasher.hash_one(&s), hasher.hash_one(&other));
            }
        }
    }
}
