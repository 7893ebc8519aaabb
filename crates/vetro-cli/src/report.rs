//! Printing diagnostics and choosing exit codes, shared by every subcommand.

use std::io::IsTerminal;
use std::process::ExitCode;
use vetro_diag::{render_json, render_text, ColorChoice, Diagnostic, SourceMap};

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
pub fn is_io_kind(kind: &str) -> bool {
    kind == "io"
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
