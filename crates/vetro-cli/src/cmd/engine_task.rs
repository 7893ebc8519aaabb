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
