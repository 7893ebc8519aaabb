//! `vetro ir NAME [options]`: run an InfraRed plugin. The options after NAME
//! come from the plugin's `plugin.spec` (`vetro ir NAME --help` lists them).

use super::spec::ansible_playbook_program;
use crate::report::{self, Format};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vetro_diag::{Diagnostic, Severity, SourceMap};
use vetro_spec::playbook::run_program;
use vetro_spec::plugin::invoke::{invoke, playbook_argv, IrOutcome, IrRequest, IrVars};
use vetro_spec::plugin::registry::Registry;
use vetro_spec::plugin::spec::load_plugin;
use vetro_spec::plugin::Plugin;
use vetro_spec::{ErrorClass, SpecError};

#[derive(clap::Args)]
pub struct Args {
    /// Plugin registry folder (default: $XDG_DATA_HOME/vetro or ~/.local/share/vetro).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Format of error messages.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// NAME [options]: an installed plugin's name (or a plugin folder, written
    /// with a '/') and the options its plugin.spec defines.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "NAME"
    )]
    rest: Vec<String>,
}

/// A plugin folder from NAME: a path when it has a '/', else a registry entry.
pub fn plugin_dir(
    name: &str,
    workspace: Option<&Path>,
    env: &HashMap<String, String>,
) -> Result<PathBuf, SpecError> {
    if name.contains('/') {
        return Ok(PathBuf::from(name));
    }
    Ok(Registry::locate(workspace, env)?.find(name)?.path)
}

/// Print the plugin's warnings (problems that do not stop it).
pub fn print_warnings(sources: &SourceMap, plugin: &Plugin, format: Format) {
    let diags: Vec<Diagnostic> = plugin
        .warnings
        .iter()
        .map(|w| {
            let mut d = w.to_diagnostic();
            d.severity = Severity::Warning;
            d
        })
        .collect();
    report::print_diagnostics(sources, &diags, format);
}

pub fn run(args: Args) -> ExitCode {
    let mut sources = SourceMap::new();
    let env: HashMap<String, String> = std::env::vars().collect();
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let (name, rest) = args.rest.split_first().expect("clap requires NAME");
    let plugin = match plugin_dir(name, args.workspace.as_deref(), &env)
        .and_then(|dir| load_plugin(&dir, &mut sources))
    {
        Ok(p) => p,
        Err(e) => return fail(&sources, &e, args.format),
    };
    print_warnings(&sources, &plugin, args.format);
    let req = IrRequest {
        args: rest.to_vec(),
        cwd,
        env,
    };
    match invoke(&plugin, &req, &mut sources) {
        Ok(IrOutcome::Help(text)) => {
            out(&text);
            ExitCode::from(report::OK)
        }
        Ok(IrOutcome::AnswersWritten(path)) => {
            eprintln!("answers file written to {}", path.display());
            ExitCode::from(report::OK)
        }
        Ok(IrOutcome::Vars(vars)) => finish(&plugin, &vars, &sources, args.format),
        Err(e) => fail(&sources, &e, args.format),
    }
}

/// Print or write the vars tree, then run the playbook unless --dry-run.
fn finish(plugin: &Plugin, vars: &IrVars, sources: &SourceMap, format: Format) -> ExitCode {
    for w in &vars.warnings {
        eprintln!("warning: {w}");
    }
    let yaml = vetro_yaml::to_yaml_string(&vetro_yaml::from_json(&vars.vars, Default::default()));
    if let Some(path) = &vars.output {
        if let Err(e) = std::fs::write(path, &yaml) {
            let err = SpecError::new(ErrorClass::Io, format!("{}: {e}", path.display()));
            return fail(sources, &err, format);
        }
    }
    if vars.dry_run {
        if vars.output.is_none() {
            out(&yaml);
        }
        return ExitCode::from(report::OK);
    }
    let temporary = vars.output.is_none();
    let vars_file = vars.output.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!(
            "vetro-ir-{}-{}.yml",
            plugin.name,
            std::process::id()
        ))
    });
    if temporary {
        if let Err(e) = std::fs::write(&vars_file, &yaml) {
            let err = SpecError::new(ErrorClass::Io, format!("{}: {e}", vars_file.display()));
            return fail(sources, &err, format);
        }
    }
    let mut envs = Vec::new();
    if let Some(roles) = &plugin.roles_path {
        let mut path = plugin.dir.join(roles).join("..").display().to_string();
        if let Ok(old) = std::env::var("ANSIBLE_ROLES_PATH") {
            if !old.is_empty() {
                path = format!("{old}:{path}");
            }
        }
        envs.push(("ANSIBLE_ROLES_PATH".to_string(), path));
    }
    let result = run_program(
        &ansible_playbook_program(),
        &playbook_argv(plugin, vars, &vars_file),
        &envs,
    );
    if temporary {
        let _ = std::fs::remove_file(&vars_file);
    }
    match result {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => fail(sources, &e, format),
    }
}

/// Write to stdout; a closed pipe (`| head`) is not an error worth a panic.
pub fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

pub fn fail(sources: &SourceMap, e: &SpecError, format: Format) -> ExitCode {
    report::print_diagnostics(sources, &[e.to_diagnostic()], format);
    ExitCode::from(if e.class.is_usage() {
        report::USAGE
    } else {
        report::INVALID
    })
}
