//! `vetro policy`: object model decomposition (`rules`), the Datalog engine
//! (`eval`), pre-deploy enforcement (`validate`) and proofs (`explain`).

use crate::report::{print_diagnostics, Format, INVALID, USAGE};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_policy::facts::{decompose, ClassHierarchy, DecomposeOptions, Decomposition};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: PolicyCommand,
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Decompose an object model into murano:* rows, one per line.
    Rules {
        model: PathBuf,
        #[command(flatten)]
        model_opts: ModelOpts,
    },
}

#[derive(clap::Args)]
struct ModelOpts {
    /// Class hierarchy: one `Child->Parent` edge per line.
    #[arg(long, value_name = "FILE")]
    classes: Option<PathBuf>,
    /// Owner of the environment object (printed as `None` when absent).
    #[arg(long, value_name = "ID")]
    tenant: Option<String>,
    /// How problems are printed.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        PolicyCommand::Rules { model, model_opts } => rules(&model, &model_opts),
    }
}

fn fail(sources: &SourceMap, diags: &[Diagnostic], format: Format) -> ExitCode {
    print_diagnostics(sources, diags, format);
    let io = diags.iter().any(|d| d.kind == "io");
    ExitCode::from(if io { USAGE } else { INVALID })
}

fn load_classes(path: Option<&Path>) -> Result<ClassHierarchy, Diagnostic> {
    let Some(path) = path else {
        return Ok(ClassHierarchy::new());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::error("io", format!("{}: {e}", path.display())))?;
    ClassHierarchy::parse_edges(&text).map_err(|e| {
        Diagnostic::error(
            "classes",
            format!("{}:{}: {}", path.display(), e.line, e.message),
        )
    })
}

fn decompose_file(
    model: &Path,
    opts: &ModelOpts,
    sources: &mut SourceMap,
) -> Result<Decomposition, Vec<Diagnostic>> {
    let classes = load_classes(opts.classes.as_deref()).map_err(|d| vec![d])?;
    let node = vetro_policy::model::load_model(model, sources)?;
    let dopts = DecomposeOptions {
        tenant: opts.tenant.clone(),
        classes,
    };
    decompose(&node, &dopts).map_err(|d| vec![d])
}

fn rules(model: &Path, opts: &ModelOpts) -> ExitCode {
    let mut sources = SourceMap::new();
    let d = match decompose_file(model, opts, &mut sources) {
        Ok(d) => d,
        Err(diags) => return fail(&sources, &diags, opts.format),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for row in &d.rows {
        if writeln!(out, "{}", row.render()).is_err() {
            return ExitCode::from(USAGE);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(USAGE);
    }
    ExitCode::SUCCESS
}
