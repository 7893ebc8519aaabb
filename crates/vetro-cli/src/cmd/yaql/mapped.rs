//! A data file read through a memory map whose pages are given back as
//! the JSON reader moves past them: a large document is then never held
//! whole beside the values made of it. Only a regular file is mapped, and
//! it must not change while it is read (as for any mapped file).

use std::cell::Cell;
use std::os::fd::AsRawFd;
use std::path::Path;

pub struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
    /// Bytes from the start whose pages were given back.
    released: Cell<usize>,
}

/// Checked and given back in steps of this many bytes.
const STEP: usize = 1 << 22;

impl Mapped {
    /// `path` mapped when it is a regular file of 1 to `max` bytes that
    /// maps; `None` otherwise (the caller then reads it).
    pub fn open(path: &Path, max: u64) -> Option<Mapped> {
        let file = std::fs::File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() == 0 || meta.len() > max {
            return None;
        }
        let len = usize::try_from(meta.len()).ok()?;
        // SAFETY: a new read-only private mapping of `len` bytes of an
        // open file; the result is checked before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then(|| Mapped {
            ptr,
            len,
            released: Cell::new(0),
        })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping is `len` readable bytes, alive as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }

    /// The file as UTF-8 text when it is that, without a byte-order mark
    /// or NUL (anything else is left to the decoder of read files): checked
    /// a step at a time, each step's pages given back after it.
    pub fn text(&self) -> Option<&str> {
        let bytes = self.bytes();
        if bytes.starts_with("\u{feff}".as_bytes()) {
            return None;
        }
        let mut at = 0;
        while at < bytes.len() {
            let chunk = &bytes[at..(at + STEP).min(bytes.len())];
            if memchr::memchr(0, chunk).is_some() {
                return None;
            }
            let from = at;
            at += match std::str::from_utf8(chunk) {
                Ok(_) => chunk.len(),
                // A character cut by the end of the step: check it with the next.
                Err(e) if e.error_len().is_none() && at + chunk.len() < bytes.len() => {
                    e.valid_up_to()
                }
                Err(_) => return None,
            };
            self.give_back(from, at);
        }
        // SAFETY: every byte was checked as UTF-8 above, and the file is
        // not changed while it is read.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    /// Give back the pages of the bytes before `n` not given back yet:
    /// they are read again from the file if they are touched again.
    pub fn release_to(&self, n: usize) {
        let from = self.released.get();
        self.give_back(from, n);
        self.released.set(n.max(from));
    }

    fn give_back(&self, from: usize, to: usize) {
        let page = page_size();
        let (from, to) = (from.div_ceil(page) * page, to.min(self.len) / page * page);
        if to > from {
            // SAFETY: whole pages inside the mapping; a private file
            // mapping's pages come back from the file unchanged when read.
            unsafe {
                libc::madvise(
                    self.ptr.cast::<u8>().add(from).cast(),
                    to - from,
                    libc::MADV_DONTNEED,
                );
            }
        }
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf only reads a system setting.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `open`, unmapped once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}
