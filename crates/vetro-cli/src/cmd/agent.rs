//! `vetro agent`: the murano-agent replacement that runs on instances. With
//! `--config-file` it serves the plans of its queue until stopped; with
//! `--run-plan` it runs one plan file and prints murano-agent's result.

use crate::cmd::service_runtime::{init_tracing, runtime, shutdown_signal};
use crate::report::{INVALID, USAGE};
use std::path::PathBuf;
use std::process::ExitCode;
use vetro_agent::{result_message, run_plan, Agent, AgentConfig};

#[derive(clap::Args)]
pub struct Args {
    /// murano-agent's configuration file (muranoagent.conf: [DEFAULT] storage,
    /// engine_key; [rabbitmq] host, port, login, password, virtual_host, ssl,
    /// input_queue, result_exchange, result_routing_key).
    #[arg(long, value_name = "FILE", required_unless_present = "run_plan")]
    config_file: Option<PathBuf>,
    /// Run this execution plan (JSON) once, print its result message and exit
    /// (0 when the plan succeeded, 1 when it failed).
    #[arg(long, value_name = "PLAN", conflicts_with = "config_file")]
    run_plan: Option<PathBuf>,
    /// With --run-plan: where the plan's files go (default: a temporary folder).
    #[arg(long, value_name = "DIR", requires = "run_plan")]
    storage: Option<PathBuf>,
    /// With --run-plan: check the plan, place its files and evaluate its Body,
    /// but start no script (each answers exit code 0).
    #[arg(long, requires = "run_plan")]
    dry_run: bool,
}

pub fn run(args: Args) -> ExitCode {
    if let Some(plan) = &args.run_plan {
        return run_once(plan, args.storage, args.dry_run);
    }
    let Some(path) = &args.config_file else {
        return ExitCode::from(USAGE);
    };
    let config = match AgentConfig::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE);
        }
    };
    init_tracing();
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    let agent = match Agent::new(config) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(USAGE);
        }
    };
    match rt.block_on(agent.serve(shutdown_signal())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(INVALID)
        }
    }
}

fn run_once(path: &PathBuf, storage: Option<PathBuf>, dry_run: bool) -> ExitCode {
    let plan: serde_json::Value = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| format!("not JSON: {e}")))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(USAGE);
        }
    };
    let tmp = std::env::temp_dir().join(format!("vetro-agent-{}", std::process::id()));
    let storage = storage.unwrap_or_else(|| tmp.clone());
    let outcome = run_plan(&plan, &storage, dry_run);
    let _ = std::fs::remove_dir_all(&tmp);
    crate::report::write_stdout(format_args!("{}\n", result_message(&plan, &outcome)));
    if outcome.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(INVALID)
    }
}
