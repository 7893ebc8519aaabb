//! `vetro yaml check` and `vetro yaml convert`.

use crate::report::{exit_for, print_diagnostics, Format};
use clap::{Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::{load_file, to_json_string, to_yaml_string, LoadOptions, Node, YamlVersion};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: YamlCommand,
}

#[derive(Subcommand)]
enum YamlCommand {
    /// Parse files and report every problem (exit 1 if any).
    Check {
        /// Files to check (`-` reads standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        opts: CommonOpts,
    },
    /// Print a file as JSON or normalized YAML, merge keys applied.
    Convert {
        /// The file to convert (`-` reads standard input).
        file: PathBuf,
        /// Output language.
        #[arg(long, value_enum, default_value_t = Target::Json)]
        to: Target,
        #[command(flatten)]
        opts: CommonOpts,
    },
}

#[derive(clap::Args)]
struct CommonOpts {
    /// Scalar schema: 1.1 (PyYAML: yes/no booleans, 017 octal) or 1.2 (core schema).
    #[arg(long = "yaml", value_name = "VERSION", default_value = "1.1")]
    yaml_version: YamlVersion,
    /// How problems are printed.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    Json,
    Yaml,
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        YamlCommand::Check { files, opts } => check(&files, &opts),
        YamlCommand::Convert { file, to, opts } => convert(&file, to, &opts),
    }
}

fn load_options(opts: &CommonOpts) -> LoadOptions {
    LoadOptions {
        version: opts.yaml_version,
        ..LoadOptions::default()
    }
}

vetro_diag::kinds! {
    /// The problems `vetro yaml` finds besides the YAML layer's.
    enum CheckKind {
        /// The file holds no YAML document.
        EmptyDocument = "empty-document",
    }
}

/// Load one file; an empty stream is a problem of its own.
fn load(
    path: &Path,
    sources: &mut SourceMap,
    opts: &CommonOpts,
) -> Result<Vec<Node>, Vec<Diagnostic>> {
    let (file, docs) = load_file(path, sources, &load_options(opts))?;
    if docs.is_empty() {
        let span = sources.span(file, 0, 0);
        return Err(vec![Diagnostic::error(
            CheckKind::EmptyDocument,
            format!("{}: the file holds no YAML document", sources.name(file)),
        )
        .with_span(span)]);
    }
    Ok(docs)
}

fn check(files: &[PathBuf], opts: &CommonOpts) -> ExitCode {
    let mut sources = SourceMap::new();
    let mut all = Vec::new();
    for path in files {
        if let Err(diags) = load(path, &mut sources, opts) {
            all.extend(diags);
        }
    }
    print_diagnostics(&sources, &all, opts.format);
    if opts.format == Format::Text && all.is_empty() {
        eprintln!("{} file(s) ok", files.len());
    }
    exit_for(&all)
}

fn convert(path: &Path, to: Target, opts: &CommonOpts) -> ExitCode {
    let mut sources = SourceMap::new();
    let docs = match load(path, &mut sources, opts) {
        Ok(docs) => docs,
        Err(diags) => {
            print_diagnostics(&sources, &diags, opts.format);
            return exit_for(&diags);
        }
    };
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        match to {
            Target::Json => {
                out.push_str(&to_json_string(doc));
                out.push('\n');
            }
            Target::Yaml => {
                if i > 0 || docs.len() > 1 {
                    out.push_str("---\n");
                }
                out.push_str(&to_yaml_string(doc));
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(out.as_bytes());
    crate::report::finish_stdout(written, stdout)
}
