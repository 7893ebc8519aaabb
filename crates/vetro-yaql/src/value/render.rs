//! [`Render`]: the text a value is written into (`str()`, `repr()`, JSON),
//! refused past a size. A value can share its containers (`[$l, $l]` doubled
//! 64 times is 64 lists but 2^64 items when written out), so its text can be
//! far larger than the value: writers stop at the limit instead of running
//! out of memory.

use crate::error::Error;
use crate::error::Result;
use crate::limits::{memory_exceeded, over_memory_limit, Run, CHECK_JOIN_BYTES};
use std::fmt;
use std::rc::Rc;

/// A string under construction with a size limit in bytes; a write past it
/// fails with the memory-limit error and leaves the text as it was.
pub struct Render {
    buf: String,
    cap: usize,
    /// The cap is still the first threshold: past it, this run's
    /// [`Run::build_budget`] is looked up once and becomes the cap.
    budgeted: Option<Rc<Run>>,
    /// The error of a write past the cap.
    refusal: fn() -> Error,
}

impl Render {
    /// Bounded by what the evaluation of `run` may still build
    /// ([`Run::build_budget`]; outside one, [`crate::limits::MAX_BUILD_BYTES`]).
    /// Short texts never look the budget up.
    pub fn budgeted(run: &Rc<Run>) -> Render {
        Render {
            buf: String::new(),
            cap: CHECK_JOIN_BYTES,
            budgeted: Some(run.clone()),
            refusal: memory_exceeded,
        }
    }

    /// Bounded by `cap` bytes (for writers outside an evaluation, such as a
    /// command's output under its memory limit).
    pub fn with_cap(cap: usize) -> Render {
        Render {
            buf: String::new(),
            cap,
            budgeted: None,
            refusal: memory_exceeded,
        }
    }

    /// Not bounded: only for hosts that apply no limit.
    pub fn unbounded() -> Render {
        Render::with_cap(usize::MAX)
    }

    /// Append `s`, or fail if the text would pass the limit.
    #[inline]
    pub fn push_str(&mut self, s: &str) -> Result<()> {
        let len = self.buf.len().saturating_add(s.len());
        if len > self.cap {
            self.raise_cap(len)?;
        }
        if self.buf.capacity() < len {
            self.reserve(len);
        }
        self.buf.push_str(s);
        Ok(())
    }

    /// Append `c`, or fail if the text would pass the limit.
    #[inline]
    pub fn push(&mut self, c: char) -> Result<()> {
        self.push_str(c.encode_utf8(&mut [0; 4]))
    }

    /// Append formatted text (`render.write(format_args!(...))`).
    pub fn write(&mut self, args: fmt::Arguments<'_>) -> Result<()> {
        match args.as_str() {
            Some(s) => self.push_str(s),
            // A refused piece leaves `refusal` saying which bound refused it.
            None => fmt::Write::write_fmt(self, args).map_err(|_| (self.refusal)()),
        }
    }

    /// The text so far.
    pub fn as_str(&self) -> &str {
        &self.buf
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// How many more bytes may be written.
    pub fn room(&self) -> usize {
        let cap = match &self.budgeted {
            Some(run) => run.build_budget(),
            None => self.cap,
        };
        cap.saturating_sub(self.buf.len())
    }

    /// The finished text.
    pub fn finish(self) -> String {
        self.buf
    }

    #[cold]
    fn raise_cap(&mut self, len: usize) -> Result<()> {
        if let Some(run) = self.budgeted.take() {
            let b = run.budget();
            self.cap = b.left;
            if b.is_host_limit() {
                self.refusal = over_memory_limit;
            }
            if len <= self.cap {
                return Ok(());
            }
        }
        Err((self.refusal)())
    }

    /// Grow the buffer by doubling, but never past the cap, so that the
    /// allocation stays within the limit the text is held to.
    #[cold]
    fn reserve(&mut self, len: usize) {
        let want = self.buf.capacity().saturating_mul(2).max(len).max(64);
        let want = if self.budgeted.is_some() {
            want
        } else {
            want.min(self.cap)
        };
        self.buf.reserve_exact(want.max(len) - self.buf.len());
    }
}

impl fmt::Write for Render {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s).map_err(|_| fmt::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatted_text_past_the_host_limit_is_the_host_limit_error() {
        let mut r = Render {
            buf: String::new(),
            cap: 5,
            budgeted: None,
            refusal: over_memory_limit,
        };
        // Arguments the compiler cannot fold into one literal, so the text
        // goes through `fmt::Write` piece by piece.
        let (a, b) = (String::from("abc"), 4567);
        let e = r.write(format_args!("{a}{b}")).unwrap_err();
        assert!(crate::limits::is_memory_limit(&e));
        assert_eq!(r.as_str(), "abc");
    }

    #[test]
    fn a_write_past_the_cap_fails_and_keeps_the_text() {
        let mut r = Render::with_cap(5);
        r.push_str("abc").unwrap();
        let e = r.push_str("def").unwrap_err();
        assert_eq!(e.kind, crate::ErrorKind::MemoryQuota);
        assert_eq!(r.as_str(), "abc");
        r.push_str("de").unwrap();
        assert!(r.push('x').is_err());
        assert!(r.buf.capacity() <= 64);
    }

    #[test]
    fn formatted_writes_count() {
        let mut r = Render::with_cap(8);
        r.write(format_args!("{}-{}", 1234, 5)).unwrap();
        assert_eq!(r.as_str(), "1234-5");
        assert!(r.write(format_args!("{}", 123)).is_err());
    }

    #[test]
    fn outside_an_evaluation_the_budget_is_the_hard_cap() {
        let mut r = Render::budgeted(&Run::idle());
        let chunk = "x".repeat(1 << 20);
        r.push_str(&chunk).unwrap();
        assert_eq!(r.cap, CHECK_JOIN_BYTES);
        r.push_str("y").unwrap();
        assert_eq!(r.cap, crate::limits::MAX_BUILD_BYTES);
    }
}
