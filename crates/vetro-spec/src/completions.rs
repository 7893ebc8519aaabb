//! Shell completion scripts for the command line a settings tree defines.

use crate::engine::{commands, Engine};
use crate::error::Result;
use clap::Command;
use std::path::Path;
use vetro_diag::SourceMap;

pub use clap_complete::Shell;

/// The completion script of `vetro spec --settings ROOT ...` for `shell`:
/// every command folder with its subcommands and options.
pub fn script(
    engine: &Engine,
    root: &Path,
    shell: Shell,
    sources: &mut SourceMap,
) -> Result<String> {
    let mut top = Command::new("vetro-spec").no_binary_name(false);
    for name in commands(root) {
        let spec = engine.load_spec(root, &name, sources)?;
        top = top.subcommand(crate::cli::build_command(&spec));
    }
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut top, "vetro-spec", &mut buf);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}
