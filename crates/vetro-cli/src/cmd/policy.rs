//! `vetro policy`: object model decomposition (`rules`), the Datalog engine
//! (`eval`), pre-deploy enforcement (`validate`) and proofs (`explain`).

use crate::report::{print_diagnostics, Format, INVALID, USAGE};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_policy::datalog::{cases, parse, Engine, PolicyError, PolicyKind};
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
    Validate {
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
        /// Exit with status 1 when any error is found.
        #[arg(long)]
        exit_code: bool,
        /// Also time an incremental re-validation after one object's change (stderr).
        #[arg(long)]
        measure_incremental: bool,
        #[command(flatten)]
        model_opts: ModelOpts,
    },
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
    },
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

pub fn run(args: Args) -> ExitCode {
    match args.command {
        PolicyCommand::Rules { model, model_opts } => rules(&model, &model_opts),
        PolicyCommand::Eval(a) => eval(&a),
        PolicyCommand::Validate {
            model,
            policy,
            kind,
            group,
            exit_code,
            measure_incremental,
            model_opts,
        } => {
            let code = validate(&model, &policy, &kind, group, exit_code, &model_opts);
            if measure_incremental {
                measure(&model, &policy, &kind, &model_opts);
            }
            code
        }
        PolicyCommand::Explain {
            model,
            policy,
            atom,
            kind,
            model_opts,
        } => explain(&model, &policy, &atom, &kind, &model_opts),
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
    let mut classes = load_classes(opts.classes.as_deref()).map_err(|d| vec![d])?;
    load_packages(&opts.packages, &mut classes, sources)?;
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
    // The rows are freed by the process exit (faster than dropping 10^6 strings).
    std::mem::forget(d);
    ExitCode::SUCCESS
}

fn policy_error(file: &Path, e: &PolicyError) -> ExitCode {
    eprintln!("error: {}: {}: {e}", e.class.as_str(), file.display());
    ExitCode::from(USAGE)
}

fn parse_kind(kind: &str) -> Result<PolicyKind, ExitCode> {
    PolicyKind::parse(kind).ok_or_else(|| {
        eprintln!("error: unknown policy kind `{kind}` (nonrecursive, database, materialized, action, datasource, recursive)");
        ExitCode::from(USAGE)
    })
}

fn read_text(path: &Path) -> Result<String, ExitCode> {
    std::fs::read(path)
        .map(|b| vetro_yaml::decode_lenient(&b))
        .map_err(|e| {
            eprintln!("error: io: {}: {e}", path.display());
            ExitCode::from(USAGE)
        })
}

fn eval(a: &EvalArgs) -> ExitCode {
    if a.batch {
        return eval_batch();
    }
    let mut engine = Engine::new();
    let mut first: Option<String> = None;
    let mut loads: Vec<(String, PathBuf)> = Vec::new();
    if let Some(rules) = &a.rules {
        let kind = match parse_kind(&a.kind) {
            Ok(k) => k,
            Err(c) => return c,
        };
        engine.create_policy("default", kind);
        first = Some("default".into());
        loads.push(("default".into(), rules.clone()));
    }
    for spec in &a.policies {
        let Some((name_kind, file)) = spec.split_once('=') else {
            eprintln!("error: --policy expects NAME[:KIND]=FILE, found `{spec}`");
            return ExitCode::from(USAGE);
        };
        let (name, kind) = match name_kind.split_once(':') {
            Some((n, k)) => (n, k),
            None => (name_kind, "nonrecursive"),
        };
        let kind = match parse_kind(kind) {
            Ok(k) => k,
            Err(c) => return c,
        };
        engine.create_policy(name, kind);
        first.get_or_insert_with(|| name.to_string());
        loads.push((name.to_string(), PathBuf::from(file)));
    }
    for (name, file) in &loads {
        let text = match read_text(file) {
            Ok(t) => t,
            Err(c) => return c,
        };
        if let Err(e) = engine.insert_text(name, &text) {
            return policy_error(file, &e);
        }
    }
    let Some(query) = &a.query else {
        eprintln!("error: --query is required (or use --batch)");
        return ExitCode::from(USAGE);
    };
    let target = a
        .target
        .clone()
        .or(first)
        .unwrap_or_else(|| "default".into());
    let q = match parse::parse_literal(query) {
        Ok(q) => q,
        Err(e) => {
            eprintln!("error: {}: query: {e}", e.class.as_str());
            return ExitCode::from(USAGE);
        }
    };
    match engine.query(&target, &q) {
        Ok(rows) => {
            let mut lines: Vec<String> = rows.iter().map(|r| engine.render(&q, r)).collect();
            lines.sort();
            for l in lines {
                println!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {}: {e}", e.class.as_str());
            ExitCode::from(INVALID)
        }
    }
}

fn eval_batch() -> ExitCode {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            return ExitCode::from(USAGE);
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(case) => cases::answer(&case),
            Err(e) => {
                serde_json::json!({"id": null, "error": "syntax", "message": format!("bad JSON case: {e}")})
            }
        };
        if writeln!(out, "{answer}").is_err() {
            return ExitCode::from(USAGE);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(USAGE);
    }
    ExitCode::SUCCESS
}

fn load_for_validate(
    model: &Path,
    policy: &Path,
    kind: &str,
    opts: &ModelOpts,
) -> Result<(Engine, Decomposition), ExitCode> {
    let kind = parse_kind(kind)?;
    let timing = std::env::var_os("VETRO_POLICY_TIMING").is_some();
    let t0 = std::time::Instant::now();
    let mut sources = SourceMap::new();
    let d = decompose_file(model, opts, &mut sources)
        .map_err(|diags| fail(&sources, &diags, opts.format))?;
    let t1 = std::time::Instant::now();
    let text = read_text(policy)?;
    let mut engine = enforce::model_engine(&d);
    let t2 = std::time::Instant::now();
    enforce::load_rules(&mut engine, &text, kind).map_err(|e| policy_error(policy, &e))?;
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

fn validate(
    model: &Path,
    policy: &Path,
    kind: &str,
    group: bool,
    exit_code: bool,
    opts: &ModelOpts,
) -> ExitCode {
    let (mut engine, d) = match load_for_validate(model, policy, kind, opts) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let t = std::time::Instant::now();
    let found = match enforce::violations(&mut engine) {
        Ok(v) => v,
        Err(e) => return policy_error(policy, &e),
    };
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
        Format::Text if group => write_grouped(&mut out, &found, &d, &mut engine),
        Format::Text => found.iter().try_for_each(|v| writeln!(out, "{}", v.atom)),
    };
    if written.and_then(|_| out.flush()).is_err() {
        return ExitCode::from(USAGE);
    }
    // Freed by the process exit: dropping the engine's tables one by one is slower.
    std::mem::forget(engine);
    std::mem::forget(d);
    if exit_code && !found.is_empty() {
        ExitCode::from(INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

/// Errors grouped by object with the object's type; under each error, the
/// property values its proof uses.
fn write_grouped(
    out: &mut impl Write,
    found: &[enforce::Violation],
    d: &Decomposition,
    engine: &mut Engine,
) -> std::io::Result<()> {
    use std::collections::HashMap;
    use vetro_policy::datalog::ast::{Literal, Term};
    use vetro_policy::facts::Table;
    let types: HashMap<&str, &str> = d
        .rows
        .iter()
        .filter(|r| r.table == Table::Objects)
        .map(|r| (r.values[0].as_str(), r.values[2].as_str()))
        .collect();
    let atoms: Vec<Literal> = found
        .iter()
        .map(|v| Literal {
            negated: false,
            modal: None,
            module: None,
            table: "predeploy_errors".into(),
            args: [&v.env, &v.object, &v.message]
                .iter()
                .map(|s| Term::Str(s.to_string()))
                .collect(),
            named: Vec::new(),
            pos: Default::default(),
        })
        .collect();
    let proofs = vetro_policy::datalog::explain::explain_all(engine, enforce::RULES_POLICY, &atoms)
        .unwrap_or_default();
    let mut i = 0;
    while i < found.len() {
        let obj = &found[i].object;
        let ty = types.get(obj.as_str()).copied().unwrap_or("?");
        writeln!(out, "{obj} ({ty})")?;
        while i < found.len() && &found[i].object == obj {
            writeln!(out, "  error: {}", found[i].message)?;
            if let Some(Some(proof)) = proofs.get(i) {
                let mut seen: Vec<(&str, &str, &str)> = Vec::new();
                for (table, values) in proof.facts() {
                    if table == "murano:properties" && values.len() == 3 {
                        let key = (values[0].as_str(), values[1].as_str(), values[2].as_str());
                        if !seen.contains(&key) {
                            seen.push(key);
                        }
                    }
                }
                for (o, name, value) in seen {
                    if o == obj.as_str() {
                        writeln!(out, "    {name} = {value}")?;
                    } else {
                        writeln!(out, "    {o}: {name} = {value}")?;
                    }
                }
            }
            i += 1;
        }
    }
    Ok(())
}

fn explain(model: &Path, policy: &Path, atom: &str, kind: &str, opts: &ModelOpts) -> ExitCode {
    let (mut engine, _) = match load_for_validate(model, policy, kind, opts) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let lit = match parse::parse_literal(atom) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}: --atom: {e}", e.class.as_str());
            return ExitCode::from(USAGE);
        }
    };
    match vetro_policy::datalog::explain::explain(&mut engine, enforce::RULES_POLICY, &lit) {
        Ok(Some(proof)) => {
            print!("{proof}");
            ExitCode::SUCCESS
        }
        Ok(None) => {
            eprintln!("{atom} does not hold");
            ExitCode::from(INVALID)
        }
        Err(e) => policy_error(policy, &e),
    }
}

/// Materializes the validation, changes one property of one object, and
/// reports how long the incremental re-validation took.
fn measure(model: &Path, policy: &Path, kind: &str, opts: &ModelOpts) {
    use vetro_policy::facts::Table;
    let Ok(kind) = parse_kind(kind) else {
        return;
    };
    let mut sources = SourceMap::new();
    let Ok(d) = decompose_file(model, opts, &mut sources) else {
        return;
    };
    let Ok(text) = read_text(policy) else {
        return;
    };
    let t0 = std::time::Instant::now();
    let Ok(mut session) = enforce::Session::new(&d, &text, kind) else {
        eprintln!("incremental: the policy does not load");
        return;
    };
    let built = t0.elapsed();
    let Some(first) = d.rows.iter().rev().find(|r| r.table == Table::Properties) else {
        return;
    };
    let obj = first.values[0].clone();
    let removed: Vec<_> = d
        .rows
        .iter()
        .filter(|r| r.table == Table::Properties && r.values[0] == obj)
        .cloned()
        .collect();
    let mut added = removed.clone();
    if let Some(r) = added.first_mut() {
        r.values[2].push_str("-changed");
    }
    let t1 = std::time::Instant::now();
    session.update(&removed, &added);
    let changed = t1.elapsed();
    let t3 = std::time::Instant::now();
    session.update(&added, &removed);
    let restored = t3.elapsed();
    let t2 = std::time::Instant::now();
    let n = session.violations().map(|v| v.len()).unwrap_or(0);
    let listed = t2.elapsed();
    let back = n;
    eprintln!(
        "incremental: materialized in {:.1} ms; object {obj} changed ({} rows): maintained in {:.3} ms, \
         listing all {n} errors {:.3} ms; restored in {:.3} ms ({back} errors)",
        built.as_secs_f64() * 1e3,
        removed.len() + added.len(),
        changed.as_secs_f64() * 1e3,
        listed.as_secs_f64() * 1e3,
        restored.as_secs_f64() * 1e3,
    );
}

/// Adds the `Extends` edges of every class in the given MuranoPL packages.
/// A class without parents extends `io.murano.Object`, as in MuranoPL.
fn load_packages(
    dirs: &[PathBuf],
    classes: &mut ClassHierarchy,
    sources: &mut SourceMap,
) -> Result<(), Vec<Diagnostic>> {
    use vetro_dsl::package::Package;
    const OBJECT: &str = "io.murano.Object";
    let mut roots: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(vec![Diagnostic::error(
                "io",
                format!("{}: not a package directory", dir.display()),
            )]);
        }
        if dir.join("manifest.yaml").is_file() {
            roots.push(dir.clone());
            continue;
        }
        let entries = std::fs::read_dir(dir)
            .map_err(|e| vec![Diagnostic::error("io", format!("{}: {e}", dir.display()))])?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("manifest.yaml").is_file())
            .collect();
        found.sort();
        roots.extend(found);
    }
    let mut loaded: Vec<String> = Vec::new();
    let mut parents: Vec<String> = Vec::new();
    for root in roots {
        let pkg = Package::load_dir(&root, sources);
        for cls in pkg.classes.values() {
            loaded.push(cls.name.clone());
            parents.extend(cls.extends.iter().cloned());
            if cls.extends.is_empty() {
                if cls.name != OBJECT {
                    classes.add_edge(&cls.name, OBJECT);
                }
            } else {
                for parent in &cls.extends {
                    classes.add_edge(&cls.name, parent);
                }
            }
        }
    }
    // Parents outside the given packages (the core library) still descend from io.murano.Object.
    for parent in parents {
        if parent != OBJECT && !loaded.contains(&parent) {
            classes.add_edge(&parent, OBJECT);
        }
    }
    Ok(())
}
