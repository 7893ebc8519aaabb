//! Printing diagnostics and choosing exit codes, shared by every subcommand.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use vetro_diag::{render_json, render_text, ColorChoice, Diagnostic, Kind, SourceMap};

/// Output format of problems and results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// Exit status: everything fine.
pub const OK: u8 = 0;
/// Exit status: the input is invalid or a check failed.
pub const INVALID: u8 = 1;
/// Exit status: usage or I/O error.
pub const USAGE: u8 = 2;

/// Diagnostic kinds that mean the input could not be read at all.
pub fn is_io_kind(kind: &Kind) -> bool {
    *kind == Kind::Io
}

/// Print diagnostics to stderr as text (with source excerpts) or as a JSON array.
pub fn print_diagnostics(sources: &SourceMap, diags: &[Diagnostic], format: Format) {
    if diags.is_empty() && format == Format::Text {
        return;
    }
    match format {
        Format::Text => {
            let color = if std::io::stderr().is_terminal() {
                ColorChoice::Always
            } else {
                ColorChoice::Never
            };
            eprint!("{}", render_text(sources, diags, color));
        }
        Format::Json => {
            let json = render_json(sources, diags);
            eprintln!(
                "{}",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
        }
    }
}

/// The exit code for a set of problems: 2 if any is an I/O problem, 1 if any
/// is an error, else 0.
pub fn exit_for(diags: &[Diagnostic]) -> ExitCode {
    if diags.iter().any(|d| is_io_kind(&d.kind)) {
        ExitCode::from(USAGE)
    } else if diags.iter().any(Diagnostic::is_error) {
        ExitCode::from(INVALID)
    } else {
        ExitCode::from(OK)
    }
}

/// Whether a write error means the reader of stdout went away (`vetro ... | head`).
/// That ends the output normally: nobody is left to read the rest.
pub fn is_closed_pipe(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Writes to stdout for every command. A closed pipe ends the process quietly
/// with status 0; any other write error ends it with status 2 and a message.
pub fn write_stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        stdout_failed(&e);
    }
}

/// Ends the process after a failed write to stdout (see [`write_stdout`]).
pub fn stdout_failed(e: &std::io::Error) -> ! {
    if is_closed_pipe(e) {
        std::process::exit(i32::from(OK));
    }
    eprintln!("error: io: cannot write to standard output: {e}");
    std::process::exit(i32::from(USAGE))
}

/// The exit code after writing a whole result to a buffered stdout writer:
/// success, or what [`stdout_failed`] decides.
pub fn finish_stdout(result: std::io::Result<()>, mut out: impl Write) -> ExitCode {
    match result.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => stdout_failed(&e),
    }
}

/// `print!` through [`write_stdout`].
#[macro_export]
macro_rules! out {
    ($($t:tt)*) => {
        $crate::report::write_stdout(format_args!($($t)*))
    };
}

/// `println!` through [`write_stdout`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::report::write_stdout(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::report::write_stdout(format_args!("{}\n", format_args!($($t)*)))
    };
}
