//! `vetro`: one binary, one subcommand per part. The subcommands only parse
//! arguments, call the libraries and print; exit codes are 0 ok, 1 invalid
//! input or failed check, 2 usage or I/O error.

mod alloc;
mod cmd;
mod report;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

#[derive(Parser)]
#[command(
    name = "vetro",
    version,
    about = "An engine for YAML-defined cloud application packages",
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check YAML files and convert them to JSON or normalized YAML.
    Yaml(cmd::yaml::Args),
    /// Evaluate YAQL expressions.
    Yaql(cmd::yaql::Args),
    /// Validate TOSCA Simple Profile service templates.
    Tosca(cmd::tosca::Args),
    /// Build a command line from InfraRed-style .spec files and run it.
    Spec(cmd::spec::Args),
    /// Run an installed InfraRed plugin: vetro ir NAME [options] (NAME --help lists them).
    Ir(cmd::ir::Args),
    /// Install, list and remove InfraRed plugins (folders with a plugin.spec and main.yml).
    Plugin(cmd::plugin::Args),
    /// Run a MuranoPL class method (or the engine's batch protocol with --batch).
    Run(cmd::run::Args),
    /// MuranoPL packages: test runner, package checker, object models.
    Murano(cmd::murano::Args),
    /// Static checks of MuranoPL packages (the same as `vetro murano check`).
    Check(cmd::murano::CheckArgs),
    /// Run MuranoPL packages' tests (the same as `vetro murano test`).
    Test(cmd::murano_test::TestArgs),
    /// Decompose object models into murano:* tables and evaluate Datalog policies.
    Policy(cmd::policy::Args),
    /// Run the Murano-compatible catalog and deployment service.
    Serve(cmd::serve::Args),
    /// Engine workers as their own process, on the service's database.
    Worker(cmd::worker::Args),
    /// The service's database: migrations.
    Db(cmd::db::Args),
    /// The service's API tokens.
    Token(cmd::token::Args),
    /// Run execution plans on an instance (a murano-agent replacement).
    Agent(cmd::agent::Args),
    /// One task's engine, for a worker (JSON Lines on stdin and stdout).
    #[command(name = "engine-task", hide = true)]
    EngineTask,
}

fn main() -> ExitCode {
    vetro_dsl::runtime::limits::set_memory_probe(alloc::in_use);
    let cli = Cli::parse();
    match cli.command {
        Command::Yaml(args) => cmd::yaml::run(args),
        Command::Yaql(args) => cmd::yaql::run(args),
        Command::Tosca(args) => cmd::tosca::run(args),
        Command::Spec(args) => cmd::spec::run(args),
        Command::Ir(args) => cmd::ir::run(args),
        Command::Plugin(args) => cmd::plugin::run(args),
        Command::Policy(args) => cmd::policy::run(args),
        Command::Run(args) => cmd::run::run(args),
        Command::Murano(args) => cmd::murano::run(args),
        Command::Check(args) => cmd::murano::run_check(args),
        Command::Test(args) => cmd::murano_test::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Worker(args) => cmd::worker::run(args),
        Command::Db(args) => cmd::db::run(args),
        Command::Token(args) => cmd::token::run(args),
        Command::Agent(args) => cmd::agent::run(args),
        Command::EngineTask => cmd::engine_task::run(),
    }
}
