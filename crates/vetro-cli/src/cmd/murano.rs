//! `vetro murano ...`: MuranoPL package tools (checker; test runner).

use crate::report::{print_diagnostics, Format};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use vetro_diag::{Severity, SourceMap};
use vetro_dsl::check;
use vetro_dsl::package::Package;

/// `println!` that ignores a closed stdout (`vetro check --expressions | head`).
macro_rules! say {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Static checks of packages: manifest, YAML, expressions, method bodies, classes.
    Check(CheckArgs),
    /// Run the packages' MuranoPL tests (io.murano.test.TestFixture subclasses).
    Test(Box<super::murano_test::TestArgs>),
    /// An application's object model from its forms (UI/ui.yaml) and answers.
    Model(super::murano_model::ModelArgs),
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Package directories.
    #[arg(required = true)]
    packages: Vec<PathBuf>,
    #[command(flatten)]
    catalog: super::packages::CatalogArgs,
    /// List every YAQL expression found (with line, column and document path).
    #[arg(long)]
    expressions: bool,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        Command::Check(a) => run_check(a),
        Command::Test(a) => super::murano_test::run(*a),
        Command::Model(a) => super::murano_model::run(a),
    }
}

pub fn run_check(a: CheckArgs) -> ExitCode {
    let mut sources = SourceMap::new();
    let mut all: Vec<Package> = a
        .packages
        .iter()
        .map(|p| Package::load_dir(p, &mut sources))
        .collect();
    let given = all.len();
    let mut problems: Vec<_> = all.iter().flat_map(|p| p.problems.clone()).collect();
    let (deps, unresolved) = a.catalog.dependencies(&all, &mut sources);
    all.extend(deps);
    problems.extend(unresolved);
    problems.extend(check::closed_problems(&all, given));
    let packages = &all[..given];
    for p in packages {
        problems.extend(vetro_forms::package::check_package_ui(
            &p.root,
            &mut sources,
        ));
    }
    let failed = problems.iter().any(|d| d.severity == Severity::Error);
    match a.format {
        Format::Json => {
            let files: Vec<_> = packages
                .iter()
                .flat_map(|p| p.files.iter().map(|f| check::file_json(f, a.expressions)))
                .collect();
            let problems: Vec<_> = problems
                .iter()
                .map(|d| check::problem_json(&sources, d))
                .collect();
            let out = serde_json::json!({"files": files, "problems": problems});
            say!("{out}");
        }
        Format::Text => {
            if a.expressions {
                for p in packages {
                    for f in &p.files {
                        for x in &f.expressions {
                            say!(
                                "{}:{}:{}: {}",
                                f.file,
                                x.expr.span.line,
                                x.expr.span.col,
                                x.expr.text
                            );
                        }
                    }
                }
            }
            print_diagnostics(&sources, &problems, Format::Text);
            if !failed {
                let n: usize = packages.iter().map(|p| p.classes.len()).sum();
                say!("ok: {} package(s), {n} class(es)", packages.len());
            }
        }
    }
    crate::report::exit_for(&problems)
}
