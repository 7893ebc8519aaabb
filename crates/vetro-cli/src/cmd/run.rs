//! `vetro run`: the part is being built; this command reports that it is unavailable.

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Arguments of the part (not accepted yet).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    rest: Vec<String>,
}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("vetro run: this part is not available in this build");
    ExitCode::from(2)
}
