//! Running `ansible-playbook` with the settings tree as extra-vars.

use crate::engine::Resolved;
use crate::error::{ErrorClass, Result, SpecError};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to run the playbook of a resolved invocation.
#[derive(Clone, Debug)]
pub struct PlaybookRun {
    /// The program (normally `ansible-playbook`).
    pub program: String,
    pub playbook: PathBuf,
    /// The settings file handed over with `--extra-vars @FILE`.
    pub settings_file: PathBuf,
    pub inventory: Option<PathBuf>,
    pub args: Vec<String>,
}

/// The playbook of `command`: `playbooks/COMMAND.yml` next to the settings
/// root, else below the current directory.
pub fn find_playbook(settings_root: &Path, cwd: &Path, command: &str) -> Result<PathBuf> {
    let name = format!("{command}.yml");
    let mut tried = Vec::new();
    if let Some(parent) = settings_root.parent() {
        tried.push(parent.join("playbooks").join(&name));
    }
    tried.push(settings_root.join("playbooks").join(&name));
    tried.push(cwd.join("playbooks").join(&name));
    if let Some(p) = tried.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let mut err = SpecError::new(
        ErrorClass::FileNotFound,
        format!("no playbook for command '{command}'"),
    );
    for p in &tried {
        err = err.with_note(format!("searched: {}", p.display()));
    }
    Err(err)
}

/// `AdditionalArgs` text `tags=a,b;forks=5;check` -> `--tags a,b --forks 5 --check`.
pub fn additional_args(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        match item.split_once('=') {
            Some((k, v)) => {
                out.push(format!("--{}", k.trim()));
                out.push(v.trim().to_string());
            }
            None => out.push(format!("--{item}")),
        }
    }
    out
}

impl PlaybookRun {
    /// The run of `resolved` by `program` (an `ansible-playbook`): inventory
    /// from the `inventory` control option (when that file exists), verbosity
    /// from `verbose`, extra arguments from every `AdditionalArgs` option.
    pub fn plan(
        resolved: &Resolved,
        program: String,
        playbook: PathBuf,
        settings_file: PathBuf,
        cwd: &Path,
    ) -> PlaybookRun {
        let mut args = Vec::new();
        let inventory = resolved
            .control
            .get("inventory")
            .and_then(Value::as_str)
            .map(|s| cwd.join(s))
            .filter(|p| p.is_file());
        if let Some(n) = resolved.control.get("verbose").and_then(Value::as_u64) {
            if n > 0 {
                args.push(format!("-{}", "v".repeat(n.min(6) as usize)));
            }
        }
        for text in &resolved.additional_args {
            args.extend(additional_args(text));
        }
        PlaybookRun {
            program,
            playbook,
            settings_file,
            inventory,
            args,
        }
    }

    /// The full argument list.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = Vec::new();
        if let Some(inv) = &self.inventory {
            argv.push("-i".to_string());
            argv.push(inv.display().to_string());
        }
        argv.push("--extra-vars".to_string());
        argv.push(format!("@{}", self.settings_file.display()));
        argv.extend(self.args.iter().cloned());
        argv.push(self.playbook.display().to_string());
        argv
    }

    /// Run it with inherited stdout/stderr (output streams through); returns
    /// the exit status. A missing program says how to install it.
    pub fn run(&self) -> Result<i32> {
        run_program(&self.program, &self.argv(), &[])
    }
}

/// Run `program argv...` with extra environment variables, output streaming
/// through; returns the exit status. A missing program says how to install it.
pub fn run_program(program: &str, argv: &[String], envs: &[(String, String)]) -> Result<i32> {
    {
        let status = Command::new(program)
            .args(argv)
            .envs(envs.iter().map(|(k, v)| (k, v)))
            .status()
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    SpecError::new(
                        ErrorClass::PlaybookError,
                        format!(
                            "'{program}' was not found on PATH; install Ansible (e.g. `python3 -m pip install ansible-core`), set VETRO_ANSIBLE_PLAYBOOK, or use --dry-run"
                        ),
                    )
                } else {
                    SpecError::new(
                        ErrorClass::PlaybookError,
                        format!("cannot run {program}: {e}"),
                    )
                }
            })?;
        Ok(status.code().unwrap_or(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn additional_args_split() {
        assert_eq!(
            additional_args("tags=a,b; forks=5;check"),
            vec!["--tags", "a,b", "--forks", "5", "--check"]
        );
    }
}
