//! `vetro run`: run MuranoPL; `--batch` speaks the engine protocol the
//! conformance harness drives (one JSON request per line on stdin).

use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Speak the JSON-lines engine protocol on stdin/stdout.
    #[arg(long)]
    batch: bool,
}

pub fn run(args: Args) -> ExitCode {
    if args.batch {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return match vetro_dsl::batch::run(stdin.lock(), stdout.lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vetro run: {e}");
                ExitCode::from(2)
            }
        };
    }
    eprintln!("vetro run: only --batch is available in this build");
    ExitCode::from(2)
}
