//! `vetro spec`: a command line built at run time from InfraRed-style `.spec`
//! files. Everything after COMMAND is parsed by the spec engine, not here.

use crate::report::{self, Format};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use vetro_diag::SourceMap;
use vetro_spec::playbook::{find_playbook, PlaybookRun};
use vetro_spec::{Engine, ErrorClass, Outcome, Request, Resolved, SpecError};

/// How to print the settings tree instead of running the playbook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dump {
    Json,
    Yaml,
}

#[derive(clap::Args)]
pub struct Args {
    /// Root of the settings tree (base.spec, COMMAND/COMMAND.spec, ...).
    #[arg(long, value_name = "DIR")]
    settings: PathBuf,
    /// Build the settings but do not run the playbook (prints them as YAML).
    #[arg(long)]
    dry_run: bool,
    /// Print the settings tree and exit (implies --dry-run).
    #[arg(long, value_name = "FORMAT")]
    dump_settings: Option<Dump>,
    /// Print a shell completion script for the spec-defined CLI and exit.
    #[arg(long, value_name = "SHELL")]
    completions: Option<vetro_spec::completions::Shell>,
    /// Format of error messages.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// COMMAND [command options] SUBCOMMAND [options], parsed by the spec.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    rest: Vec<String>,
}

pub fn run(args: Args) -> ExitCode {
    let mut sources = SourceMap::new();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let engine = Engine::default();
    if !args.settings.is_dir() {
        let err = SpecError::new(
            ErrorClass::Io,
            format!(
                "{}: the settings tree is not a directory",
                args.settings.display()
            ),
        );
        return fail(&sources, &err, args.format);
    }
    if let Some(shell) = args.completions {
        return match vetro_spec::completions::script(&engine, &args.settings, shell, &mut sources) {
            Ok(text) => {
                out(&text);
                ExitCode::from(report::OK)
            }
            Err(e) => fail(&sources, &e, args.format),
        };
    }
    let request = Request {
        settings_root: args.settings.clone(),
        args: args.rest.clone(),
        cwd: cwd.clone(),
        env: std::env::vars().collect::<HashMap<_, _>>(),
    };
    match engine.run(&request, &mut sources) {
        Ok(Outcome::Help(text)) => {
            out(&text);
            ExitCode::from(report::OK)
        }
        Ok(Outcome::GeneratedConfig(path)) => {
            eprintln!("configuration written to {}", path.display());
            ExitCode::from(report::OK)
        }
        Ok(Outcome::Settings(resolved)) => finish(&args, &resolved, &cwd, &sources),
        Err(e) => fail(&sources, &e, args.format),
    }
}

/// Print, write or run the settings of a successful invocation.
fn finish(
    args: &Args,
    resolved: &Resolved,
    cwd: &std::path::Path,
    sources: &SourceMap,
) -> ExitCode {
    match args.dump_settings {
        Some(Dump::Json) => {
            let mut text = serde_json::to_string_pretty(&resolved.settings).unwrap_or_default();
            text.push('\n');
            out(&text);
            return ExitCode::from(report::OK);
        }
        Some(Dump::Yaml) => {
            out(&to_yaml(&resolved.settings));
            return ExitCode::from(report::OK);
        }
        None => {}
    }
    let output = resolved
        .control
        .get("output")
        .and_then(|v| v.as_str())
        .map(|s| cwd.join(s));
    let spec_dry_run = resolved.control.get("dry-run") == Some(&serde_json::Value::Bool(true));
    if args.dry_run || spec_dry_run {
        match output {
            Some(path) => {
                if let Err(e) = std::fs::write(&path, to_yaml(&resolved.settings)) {
                    let err = SpecError::new(ErrorClass::Io, format!("{}: {e}", path.display()));
                    return fail(sources, &err, args.format);
                }
            }
            None => out(&to_yaml(&resolved.settings)),
        }
        return ExitCode::from(report::OK);
    }
    let playbook = match find_playbook(&args.settings, cwd, &resolved.command) {
        Ok(p) => p,
        Err(e) => return fail(sources, &e, args.format),
    };
    let temporary = output.is_none();
    let settings_file = output.unwrap_or_else(|| {
        std::env::temp_dir().join(format!(
            "vetro-settings-{}-{}.yml",
            resolved.command,
            std::process::id()
        ))
    });
    if let Err(e) = std::fs::write(&settings_file, to_yaml(&resolved.settings)) {
        let err = SpecError::new(ErrorClass::Io, format!("{}: {e}", settings_file.display()));
        return fail(sources, &err, args.format);
    }
    let program = ansible_playbook_program();
    let run = PlaybookRun::plan(resolved, program, playbook, settings_file.clone(), cwd);
    let result = run.run();
    if temporary {
        let _ = std::fs::remove_file(&settings_file);
    }
    match result {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => fail(sources, &e, args.format),
    }
}

/// Write to stdout through the shared writer (a closed pipe ends the run quietly).
fn out(text: &str) {
    crate::out!("{text}");
}

fn to_yaml(v: &serde_json::Value) -> String {
    vetro_yaml::to_yaml_string(&vetro_yaml::from_json(v, Default::default()))
}

fn fail(sources: &SourceMap, e: &SpecError, format: Format) -> ExitCode {
    report::print_diagnostics(sources, &[e.to_diagnostic()], format);
    ExitCode::from(if e.class.is_usage() {
        report::USAGE
    } else {
        report::INVALID
    })
}

/// The ansible-playbook program: `$VETRO_ANSIBLE_PLAYBOOK`, else
/// `ansible-playbook` from `PATH`.
pub(crate) fn ansible_playbook_program() -> String {
    std::env::var("VETRO_ANSIBLE_PLAYBOOK")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "ansible-playbook".to_string())
}
