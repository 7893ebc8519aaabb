//! `vetro engine-task` (hidden): one task's engine in a process of its own,
//! started by a worker, speaking `vetro_deploy::child`'s JSON Lines on
//! standard input and output. Not for people: the worker sets its limits
//! and its environment.

use crate::report::USAGE;
use std::io::{BufReader, Write};
use std::process::ExitCode;

/// The subcommand's name, as workers start it.
pub const SUBCOMMAND: &str = "engine-task";

pub fn run() -> ExitCode {
    no_huge_pages();
    let stdout = std::io::stdout();
    let out = std::io::BufWriter::new(stdout.lock());
    match vetro_deploy::child::serve(BufReader::new(std::io::stdin()), out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(USAGE)
        }
    }
}

/// Transparent huge pages off for this process: the allocator asks for them
/// on its heap, and the kernel then zeroes 2 MiB at the first touch of each
/// one, which a process that lives for one task pays and never gets back.
#[cfg(target_os = "linux")]
fn no_huge_pages() {
    // SAFETY: a plain system call with integer arguments; failing only
    // leaves huge pages on.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}
