//! Shell completion scripts for the command line a settings tree defines.

use crate::engine::{commands, Engine};
use crate::error::Result;
use clap::{Arg, ArgAction, Command};
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
    let mut spec_cmd = Command::new("spec")
        .arg(Arg::new("settings").long("settings").value_name("DIR"))
        .arg(
            Arg::new("dry-run")
                .long("dry-run")
                .action(ArgAction::SetTrue),
        )
        .arg(
            Arg::new("dump-settings")
                .long("dump-settings")
                .value_parser(["json", "yaml"]),
        );
    for name in commands(root) {
        let spec = engine.load_spec(root, &name, sources)?;
        spec_cmd = spec_cmd.subcommand(crate::cli::build_command(&spec).no_binary_name(false));
    }
    let mut top = Command::new("vetro").subcommand(spec_cmd);
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut top, "vetro", &mut buf);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}
