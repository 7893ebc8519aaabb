//! `vetro policy`: object model decomposition (`rules`), the Datalog engine
//! (`eval`), pre-deploy enforcement (`validate`) and proofs (`explain`).

use crate::report::{print_diagnostics, Format, INVALID, USAGE};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;
use vetro_diag::{Diagnostic, Kind, SourceMap};
use vetro_policy::datalog::{parse, Engine, Limits, PolicyError, PolicyKind};
use vetro_policy::enforce;
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
    /// Evaluate a Datalog query (or, with --batch, JSON Lines cases from stdin).
    Eval(EvalArgs),
    /// Check an object model against a policy: print every predeploy_errors atom.
    Validate(ValidateArgs),
    /// Show the proof of a derived atom, e.g. --atom 'predeploy_errors("e", "o", "m")'.
    Explain {
        model: PathBuf,
        #[arg(long, value_name = "FILE")]
        policy: PathBuf,
        #[arg(long)]
        atom: String,
        #[arg(long, default_value = "nonrecursive")]
        kind: String,
        #[command(flatten)]
        model_opts: ModelOpts,
        #[command(flatten)]
        limits: LimitOpts,
    },
}

#[derive(clap::Args)]
struct ValidateArgs {
    model: PathBuf,
    /// The policy (Congress syntax), loaded as `murano_system`.
    #[arg(long, value_name = "FILE")]
    policy: PathBuf,
    /// Policy kind: nonrecursive (the reference's), or recursive for stratified recursion.
    #[arg(long, default_value = "nonrecursive")]
    kind: String,
    /// Group the errors by object with the object's properties (text output).
    #[arg(long)]
    group: bool,
    /// Exit with status 1 when any error is found (by default the errors are
    /// the command's output and the status is 0).
    #[arg(long)]
    exit_code: bool,
    /// Also time an incremental re-validation after one object's change (stderr).
    #[arg(long)]
    measure_incremental: bool,
    #[command(flatten)]
    model_opts: ModelOpts,
    #[command(flatten)]
    limits: LimitOpts,
}

#[derive(clap::Args)]
struct EvalArgs {
    /// Read JSON Lines cases from stdin and answer each on stdout.
    #[arg(long)]
    batch: bool,
    /// Rules of the target policy.
    #[arg(long, value_name = "FILE")]
    rules: Option<PathBuf>,
    /// Kind of the --rules policy.
    #[arg(long, default_value = "nonrecursive")]
    kind: String,
    /// More policies: NAME[:KIND]=FILE.
    #[arg(long = "policy", value_name = "NAME[:KIND]=FILE")]
    policies: Vec<String>,
    /// The policy the query is evaluated in (default: the --rules policy).
    #[arg(long)]
    target: Option<String>,
    /// The query atom.
    #[arg(long)]
    query: Option<String>,
    /// How problems are printed.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    limits: LimitOpts,
}

#[derive(clap::Args)]
struct ModelOpts {
    /// Class hierarchy: one `Child->Parent` edge per line.
    #[arg(long, value_name = "FILE")]
    classes: Option<PathBuf>,
    /// MuranoPL packages (a package directory, or a directory of packages) whose
    /// classes' `Extends` chains give the class hierarchy.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    packages: Vec<PathBuf>,
    /// Owner of the environment object (printed as `None` when absent).
    #[arg(long, value_name = "ID")]
    tenant: Option<String>,
    /// How problems are printed.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(clap::Args)]
struct LimitOpts {
    /// Most tuples the rules may derive before evaluation stops with an error.
    #[arg(long, value_name = "N", default_value_t = vetro_policy::datalog::limits::DEFAULT_MAX_TUPLES)]
    max_tuples: usize,
    /// Longest evaluation time in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    timeout: Option<Duration>,
}

impl LimitOpts {
    fn limits(&self) -> Limits {
        Limits {
            max_tuples: self.max_tuples,
            timeout: self.timeout,
        }
    }
}

/// A positive, finite number of seconds.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(secs.is_finite() && secs > 0.0 && secs <= 1e9) {
        return Err(format!(
            "`{text}`: the timeout must be a positive number of seconds (at most 1e9)"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

pub fn run(args: Args) -> ExitCode {
    let result = match args.command {
        PolicyCommand::Rules { model, model_opts } => rules(&model, &model_opts),
        PolicyCommand::Eval(a) if a.batch => return eval_batch(),
        PolicyCommand::Eval(a) => eval(&a),
        PolicyCommand::Validate(a) => validate(&a),
        PolicyCommand::Explain {
            model,
            policy,
            atom,
            kind,
            model_opts,
            limits,
        } => explain(&model, &policy, &atom, &kind, &model_opts, &limits),
    };
    result.unwrap_or_else(|failure| failure.report())
}

/// Why a command failed, printed once by [`Failure::report`].
struct Failure {
    sources: SourceMap,
    diags: Vec<Diagnostic>,
    format: Format,
}

impl Failure {
    fn new(sources: SourceMap, diags: Vec<Diagnostic>, format: Format) -> Self {
        Failure {
            sources,
            diags,
            format,
        }
    }

    fn usage(message: impl Into<String>) -> Self {
        Failure::new(
            SourceMap::new(),
            vec![Diagnostic::error(Kind::Usage, message)],
            Format::Text,
        )
    }

    fn report(self) -> ExitCode {
        let usage = self
            .diags
            .iter()
            .any(|d| matches!(d.kind, Kind::Io | Kind::Usage));
        print_diagnostics(&self.sources, &self.diags, self.format);
        ExitCode::from(if usage { USAGE } else { INVALID })
    }
}

/// A policy error as a diagnostic at its place in `file` (already in `sources`).
fn policy_diag(sources: &SourceMap, file: vetro_diag::FileId, e: &PolicyError) -> Diagnostic {
    let d = Diagnostic::error(e.class, e.message.clone());
    match e.span {
        Some(span) => d.with_span(vetro_diag::Span { file, ..span }),
        None => d.with_path(sources.name(file).to_string()),
    }
}

/// Prints a policy error: in text as `error: CLASS: FILE:LINE:COL: message`
/// (one line, as the conformance corpus expects), in JSON as a diagnostic.
fn policy_failure(
    sources: SourceMap,
    file: vetro_diag::FileId,
    e: &PolicyError,
    format: Format,
) -> Failure {
    if format == Format::Text {
        let at = match e.span {
            Some(p) => format!("{}:{}:{}", sources.name(file), p.line, p.col),
            None => sources.name(file).to_string(),
        };
        let message = vetro_diag::clip(&e.message);
        eprintln!("error: {}: {at}: {message}", e.class);
        return Failure::new(SourceMap::new(), Vec::new(), format);
    }
    let d = policy_diag(&sources, file, e);
    Failure::new(sources, vec![d], format)
}

fn load_classes(
    path: Option<&Path>,
    sources: &mut SourceMap,
) -> Result<ClassHierarchy, Diagnostic> {
    let Some(path) = path else {
        return Ok(ClassHierarchy::new());
    };
    let id = vetro_yaml::read_source(path, sources, vetro_yaml::DEFAULT_MAX_INPUT)?;
    ClassHierarchy::parse_edges(sources.text(id)).map_err(|e| {
        let start = sources
            .text(id)
            .split_inclusive('\n')
            .take(e.line - 1)
            .map(str::len)
            .sum::<usize>();
        Diagnostic::error(vetro_policy::InputKind::Classes, e.message)
            .with_span(sources.span(id, start, start))
    })
}

/// Adds the `Extends` edges of every class in the given MuranoPL packages.
fn load_packages(
    dirs: &[PathBuf],
    classes: &mut ClassHierarchy,
    sources: &mut SourceMap,
) -> Result<(), Diagnostic> {
    let roots = vetro_policy::facts::package_roots(dirs)?;
    let packages: Vec<_> = roots
        .iter()
        .map(|root| vetro_dsl::package::Package::load_dir(root, sources))
        .collect();
    classes.add_classes(
        packages
            .iter()
            .flat_map(|p| p.classes.values())
            .map(|c| (c.name.as_str(), c.extends.as_slice())),
    );
    Ok(())
}

fn decompose_file(model: &Path, opts: &ModelOpts) -> Result<Decomposition, Failure> {
    let mut sources = SourceMap::new();
    let loaded = (|| {
        let mut classes =
            load_classes(opts.classes.as_deref(), &mut sources).map_err(|d| vec![d])?;
        load_packages(&opts.packages, &mut classes, &mut sources).map_err(|d| vec![d])?;
        let node = vetro_policy::model::load_model(model, &mut sources)?;
        let dopts = DecomposeOptions {
            tenant: opts.tenant.clone(),
            classes,
        };
        decompose(&node, &dopts).map_err(|mut d| {
            d.message = format!("{}: {}", model.display(), d.message);
            vec![d]
        })
    })();
    loaded.map_err(|diags| Failure::new(sources, diags, opts.format))
}

fn rules(model: &Path, opts: &ModelOpts) -> Result<ExitCode, Failure> {
    let d = decompose_file(model, opts)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = d
        .rows
        .iter()
        .try_for_each(|row| writeln!(out, "{}", row.render()));
    // The rows are freed by the process exit (faster than dropping 10^6 strings).
    std::mem::forget(d);
    Ok(crate::report::finish_stdout(written, out))
}

fn parse_kind(kind: &str) -> Result<PolicyKind, Failure> {
    PolicyKind::parse(kind).ok_or_else(|| {
        Failure::usage(format!(
            "unknown policy kind `{kind}` (nonrecursive, database, materialized, action, datasource, recursive)"
        ))
    })
}

/// Reads a policy file and inserts it into `policy`.
fn load_policy_file(
    engine: &mut Engine,
    name: &str,
    file: &Path,
    format: Format,
) -> Result<(), Failure> {
    let mut sources = SourceMap::new();
    let id = vetro_yaml::read_source(file, &mut sources, vetro_yaml::DEFAULT_MAX_INPUT)
        .map_err(|d| Failure::new(SourceMap::new(), vec![d], format))?;
    let text = sources.text(id).to_string();
    engine
        .insert_text(name, &text)
        .map(|_| ())
        .map_err(|e| policy_failure(sources, id, &e, format))
}

/// The policies of `eval`: (name, kind, file) in command-line order.
fn eval_policies(a: &EvalArgs) -> Result<Vec<(String, PolicyKind, PathBuf)>, Failure> {
    let mut out = Vec::new();
    if let Some(rules) = &a.rules {
        out.push(("default".to_string(), parse_kind(&a.kind)?, rules.clone()));
    }
    for spec in &a.policies {
        let Some((name_kind, file)) = spec.split_once('=') else {
            return Err(Failure::usage(format!(
                "--policy expects NAME[:KIND]=FILE, found `{spec}`"
            )));
        };
        let (name, kind) = name_kind
            .split_once(':')
            .unwrap_or((name_kind, "nonrecursive"));
        out.push((name.to_string(), parse_kind(kind)?, PathBuf::from(file)));
    }
    Ok(out)
}

fn eval(a: &EvalArgs) -> Result<ExitCode, Failure> {
    let Some(query) = &a.query else {
        return Err(Failure::usage("--query is required (or use --batch)"));
    };
    let policies = eval_policies(a)?;
    let mut engine = Engine::new();
    engine.limits = a.limits.limits();
    for (name, kind, _) in &policies {
        engine.create_policy(name, *kind);
    }
    for (name, _, file) in &policies {
        load_policy_file(&mut engine, name, file, a.format)?;
    }
    let target = a
        .target
        .clone()
        .or_else(|| policies.first().map(|p| p.0.clone()))
        .unwrap_or_else(|| "default".into());
    let mut sources = SourceMap::new();
    let qid = sources.add("--query", query.clone());
    let q = parse::parse_literal(query).map_err(|e| policy_failure(sources, qid, &e, a.format))?;
    let rows = engine.query(&target, &q).map_err(|e| {
        let mut sources = SourceMap::new();
        let id = sources.add("--query", query.clone());
        policy_failure(sources, id, &e, a.format)
    })?;
    let mut lines: Vec<String> = rows.iter().map(|r| engine.render(&q, r)).collect();
    lines.sort();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = lines.iter().try_for_each(|l| writeln!(out, "{l}"));
    Ok(crate::report::finish_stdout(written, out))
}

fn eval_batch() -> ExitCode {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let out = std::io::BufWriter::new(stdout.lock());
    match vetro_conformance::policy::run(stdin.lock(), out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if crate::report::is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: io: {e}");
            ExitCode::from(USAGE)
        }
    }
}

fn load_for_validate(
    model: &Path,
    policy: &Path,
    kind: &str,
    opts: &ModelOpts,
    limits: &LimitOpts,
) -> Result<(Engine, Decomposition), Failure> {
    let kind = parse_kind(kind)?;
    let timing = std::env::var_os("VETRO_POLICY_TIMING").is_some();
    let t0 = std::time::Instant::now();
    let d = decompose_file(model, opts)?;
    let t1 = std::time::Instant::now();
    let mut engine = enforce::model_engine(&d);
    engine.limits = limits.limits();
    let t2 = std::time::Instant::now();
    engine.create_policy(enforce::RULES_POLICY, kind);
    load_policy_file(&mut engine, enforce::RULES_POLICY, policy, opts.format)?;
    if timing {
        eprintln!(
            "timing: decompose {:.1} ms, load rows {:.1} ms, load rules {:.1} ms",
            (t1 - t0).as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
            t2.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok((engine, d))
}

/// An evaluation error of the loaded policy (a limit hit, for example).
fn evaluation_failure(policy: &Path, e: &PolicyError, format: Format) -> Failure {
    let mut sources = SourceMap::new();
    let id = sources.add(policy.display().to_string(), String::new());
    policy_failure(sources, id, e, format)
}

fn validate(a: &ValidateArgs) -> Result<ExitCode, Failure> {
    let opts = &a.model_opts;
    let (mut engine, d) = load_for_validate(&a.model, &a.policy, &a.kind, opts, &a.limits)?;
    let t = std::time::Instant::now();
    let found = enforce::violations(&mut engine)
        .map_err(|e| evaluation_failure(&a.policy, &e, opts.format))?;
    if std::env::var_os("VETRO_POLICY_TIMING").is_some() {
        eprintln!("timing: evaluate {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match opts.format {
        Format::Json => {
            let items: Vec<serde_json::Value> = found
                .iter()
                .map(|v| serde_json::json!({"env": v.env, "object": v.object, "message": v.message, "atom": v.atom}))
                .collect();
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&items).unwrap_or_default()
            )
        }
        Format::Text if a.group => {
            let groups = vetro_policy::report::group_by_object(&found, &d, &mut engine)
                .map_err(|e| evaluation_failure(&a.policy, &e, opts.format))?;
            groups.iter().try_for_each(|g| write!(out, "{g}"))
        }
        Format::Text => found.iter().try_for_each(|v| writeln!(out, "{}", v.atom)),
    };
    let code = crate::report::finish_stdout(written, out);
    if a.measure_incremental {
        let kind = parse_kind(&a.kind)?;
        let text = std::fs::read_to_string(&a.policy).unwrap_or_default();
        match vetro_policy::report::measure_incremental(&d, &text, kind) {
            Ok(Some(timing)) => eprintln!("{timing}"),
            Ok(None) => eprintln!("incremental: the model has no property to change"),
            Err(e) => eprintln!("incremental: {e}"),
        }
    }
    // Freed by the process exit: dropping the engine's tables one by one is slower.
    std::mem::forget(engine);
    std::mem::forget(d);
    if a.exit_code && !found.is_empty() {
        Ok(ExitCode::from(INVALID))
    } else {
        Ok(code)
    }
}

fn explain(
    model: &Path,
    policy: &Path,
    atom: &str,
    kind: &str,
    opts: &ModelOpts,
    limits: &LimitOpts,
) -> Result<ExitCode, Failure> {
    let (mut engine, _) = load_for_validate(model, policy, kind, opts, limits)?;
    let mut sources = SourceMap::new();
    let id = sources.add("--atom", atom.to_string());
    let lit =
        parse::parse_literal(atom).map_err(|e| policy_failure(sources, id, &e, opts.format))?;
    match vetro_policy::datalog::explain::explain(&mut engine, enforce::RULES_POLICY, &lit) {
        Ok(Some(proof)) => {
            crate::out!("{proof}");
            Ok(ExitCode::SUCCESS)
        }
        Ok(None) => {
            eprintln!("{atom} does not hold");
            Ok(ExitCode::from(INVALID))
        }
        Err(e) => Err(evaluation_failure(policy, &e, opts.format)),
    }
}
