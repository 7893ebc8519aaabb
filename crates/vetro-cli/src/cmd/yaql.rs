//! `vetro yaql`: evaluate a YAQL expression against a JSON/YAML document, or
//! run the conformance batch protocol (`--batch`).

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Duration;
use vetro_yaql::{data, Engine, EngineOptions, Error, Limits, Value};

mod mapped;

#[derive(clap::Args)]
pub struct Args {
    /// The expression (without it on a terminal: an interactive shell).
    expr: Option<String>,
    /// Input document bound to `$` (JSON or YAML; `-` for stdin).
    #[arg(long)]
    data: Option<String>,
    /// A variable: `name=JSON` (repeatable), read as `$name`.
    #[arg(long = "set", value_name = "NAME=JSON")]
    set: Vec<String>,
    /// Legacy mode (`=>` builds tuples, legacy functions).
    #[arg(long)]
    legacy: bool,
    /// Output format of the result (json by default); with an explicit
    /// `--format json` errors are printed as JSON data too.
    #[arg(long, value_parser = ["json", "yaml"])]
    format: Option<String>,
    /// Stop an evaluation after this many seconds (0: no limit).
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = parse_seconds)]
    timeout: Seconds,
    /// Stop an evaluation that allocates more than this many MiB (0: no limit).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    max_memory: usize,
    /// Run the JSON Lines batch protocol on stdin.
    #[arg(long)]
    batch: bool,
}

pub fn run(args: Args) -> ExitCode {
    if args.batch {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        // The memory limit holds for every case; the protocol has its own
        // time limit per case.
        let limits = engine_options(&args).yaql.limits;
        return match vetro_conformance::yaql::run(stdin.lock(), stdout.lock(), &limits) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vetro yaql: {e}");
                ExitCode::from(2)
            }
        };
    }
    let format = args.format.as_deref().unwrap_or("text");
    let engine = Engine::new(engine_options(&args));
    let data = match &args.data {
        None => Value::Null,
        Some(path) => match load_data(path) {
            Ok(v) => v,
            Err(DataProblem::Io(msg)) => return usage_error(&msg, format),
            Err(DataProblem::Invalid(msg)) => return report(1, "data", &msg, format),
        },
    };
    let mut vars: Vec<(String, Value)> = Vec::new();
    for s in &args.set {
        let Some((name, text)) = s.split_once('=') else {
            return usage_error(&format!("--set expects NAME=JSON, got {s:?}"), format);
        };
        // Not JSON: the text itself is the (string) value.
        let value = data::load_json_str(text).unwrap_or_else(|| Value::from(text));
        vars.push((name.to_string(), value));
    }
    // The process ends after the answer: the document is left to the
    // system rather than released value by value.
    std::mem::forget(data.clone());
    match &args.expr {
        Some(expr) => evaluate(&engine, expr, data, &vars, format),
        None if std::io::stdin().is_terminal() => shell(&engine, data, &vars, format),
        None => {
            let mut text = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                return usage_error(
                    &format!("cannot read the expression from stdin: {e}"),
                    format,
                );
            }
            evaluate(&engine, text.trim(), data, &vars, format)
        }
    }
}

fn engine_options(args: &Args) -> EngineOptions {
    EngineOptions {
        legacy: args.legacy,
        legacy_context: args.legacy,
        allow_delegates: true,
        delegates: true,
        format: true,
        yaql: vetro_yaql::Options {
            convert_tuples_to_lists: true,
            iterable_dicts: args.legacy,
            limits: Limits {
                timeout: args.timeout.0,
                max_allocated: (args.max_memory > 0)
                    .then(|| args.max_memory.saturating_mul(1 << 20)),
                memory_probe: Some(crate::alloc::in_use),
                ..Default::default()
            },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A time limit; `None` means none.
#[derive(Clone, Copy, Debug)]
struct Seconds(Option<Duration>);

/// A number of seconds: finite and not negative; 0 means no limit.
fn parse_seconds(text: &str) -> Result<Seconds, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("expected a number of seconds, got {text:?}"))?;
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!(
            "expected a finite, non-negative number of seconds, got {text}"
        ));
    }
    if secs == 0.0 {
        return Ok(Seconds(None));
    }
    Duration::try_from_secs_f64(secs)
        .map(|d| Seconds(Some(d)))
        .map_err(|e| format!("{text}: {e}"))
}

/// An I/O or usage problem: exit code 2, as JSON data with `--format json`.
fn usage_error(message: &str, format: &str) -> ExitCode {
    report(2, "io", message, format)
}

/// A problem outside the expression, as text on stderr or (`--format
/// json`) as `{"error": {"kind", "message"}}` on stdout.
fn report(code: u8, kind: &str, message: &str, format: &str) -> ExitCode {
    if format == "json" {
        let j = serde_json::json!({"error": {"kind": kind, "message": message}});
        print_out(&format!("{j}\n"));
    } else {
        let _ = writeln!(std::io::stderr(), "vetro yaql: {message}");
    }
    ExitCode::from(code)
}

enum DataProblem {
    /// The file cannot be read (exit code 2).
    Io(String),
    /// The file is not a JSON/YAML document (exit code 1).
    Invalid(String),
}

fn load_data(path: &str) -> Result<Value, DataProblem> {
    // A regular file is mapped and given back as the loader reads on.
    if path != "-" {
        let file = mapped::Mapped::open(std::path::Path::new(path), vetro_yaml::DEFAULT_MAX_INPUT);
        if let Some(text) = file.as_ref().and_then(mapped::Mapped::text) {
            let consumed = |n: usize| file.as_ref().map_or((), |f| f.release_to(n));
            return data::load_str_consuming(path, text, Some(&consumed))
                .map_err(|e| DataProblem::Invalid(e.message));
        }
    }
    // At most the input size limit: `--data /dev/zero` is refused, not read
    // until memory runs out.
    let bytes = vetro_yaml::read_bytes(std::path::Path::new(path), vetro_yaml::DEFAULT_MAX_INPUT)
        .map_err(|d| DataProblem::Io(d.message))?;
    let name = if path == "-" { "<stdin>" } else { path };
    // UTF-8 text without a byte-order mark or NUL is the bytes themselves
    // (not copied); anything else is decoded or refused by the decoder.
    let text = match String::from_utf8(bytes) {
        Ok(t) if !t.starts_with('\u{feff}') && !t.contains('\0') => Ok(t),
        Ok(t) => vetro_yaml::decode_strict(t.as_bytes()),
        Err(e) => vetro_yaml::decode_strict(e.as_bytes()),
    }
    .map_err(|e| DataProblem::Invalid(format!("{name}: {e}")))?;
    data::load_str(name, &text).map_err(|e| DataProblem::Invalid(e.message))
}

/// Write to stdout; a closed pipe (`vetro yaql ... | head`) is not an error.
fn print_out(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// The result as text, at most `cap` bytes of it (a value sharing its
/// containers is far larger written out), or the memory-limit error.
fn value_text(v: &Value, format: &str, cap: usize) -> Result<String, Error> {
    if format == "yaml" {
        let mut left = cap;
        let node = data::to_node_capped(v, &mut left)?;
        Ok(vetro_yaml::to_yaml_string(&node))
    } else {
        let mut out = vetro_yaql::value::Render::with_cap(cap);
        data::write_json(v, true, &mut out)?;
        out.push('\n')?;
        Ok(out.finish())
    }
}

fn print_error(expr: &str, e: &Error, format: &str) {
    if format == "json" {
        let j = serde_json::json!({"error": {
            "kind": e.kind.as_str(), "message": e.message, "position": e.position}});
        print_out(&format!("{j}\n"));
    } else {
        let _ = writeln!(std::io::stderr(), "{}", e.render(expr));
    }
}

fn evaluate(
    engine: &Engine,
    expr: &str,
    data: Value,
    vars: &[(String, Value)],
    format: &str,
) -> ExitCode {
    let vars: Vec<(&str, Value)> = vars.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    // The result's text is held to the memory limit the evaluation ran under.
    let cap = engine.opts.yaql.limits.max_allocated.unwrap_or(usize::MAX);
    let parsed = match engine.parse(expr) {
        Ok(parsed) => parsed,
        Err(e) => {
            print_error(expr, &e, format);
            return ExitCode::from(1);
        }
    };
    // The engine's library is the whole function set here: a call of a
    // function it lacks fails if it is reached.
    let undefined = parsed.undefined_functions();
    let result = engine
        .evaluate(&parsed, data, &vars)
        .and_then(|v| value_text(&v, format, cap));
    let (code, failed) = match result {
        Ok(text) => {
            print_out(&text);
            (ExitCode::SUCCESS, None)
        }
        Err(e) => {
            print_error(expr, &e, format);
            (ExitCode::from(1), Some(e))
        }
    };
    let same = |u: &&Error| {
        failed
            .as_ref()
            .is_some_and(|f| f.kind == u.kind && f.position == u.position)
    };
    for u in undefined.iter().filter(|u| !same(u)) {
        print_warning(expr, u, format);
    }
    code
}

/// A call that fails if it is reached, on stderr: as text with a caret, or
/// (`--format json`) as `{"warning": {"kind", "message", "position"}}`.
fn print_warning(expr: &str, e: &Error, format: &str) {
    let text = if format == "json" {
        serde_json::json!({"warning": {
            "kind": e.kind.as_str(), "message": e.message, "position": e.position}})
        .to_string()
    } else {
        format!("warning: {}", e.render(expr))
    };
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// The interactive shell: line editing and history (kept in
/// `~/.vetro_yaql_history`); a line ending in `\` continues on the next one.
fn shell(engine: &Engine, data: Value, vars: &[(String, Value)], format: &str) -> ExitCode {
    let Ok(mut editor) = rustyline::DefaultEditor::new() else {
        return usage_error(
            "cannot start the interactive shell on this terminal",
            format,
        );
    };
    let history = std::env::var_os("HOME")
        .map(|home| std::path::PathBuf::from(home).join(".vetro_yaql_history"));
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    let mut buf = String::new();
    loop {
        let prompt = if buf.is_empty() { "yaql> " } else { "...> " };
        let line = match editor.readline(prompt) {
            Ok(line) => line,
            // Ctrl-C drops the expression being typed; Ctrl-D ends the shell.
            Err(rustyline::error::ReadlineError::Interrupted) => {
                buf.clear();
                continue;
            }
            Err(_) => break,
        };
        if let Some(part) = line.strip_suffix('\\') {
            buf.push_str(part);
            buf.push('\n');
            continue;
        }
        buf.push_str(&line);
        let expr = std::mem::take(&mut buf);
        let expr = expr.trim();
        if !expr.is_empty() {
            let _ = editor.add_history_entry(expr);
            evaluate(engine, expr, data.clone(), vars, format);
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    ExitCode::SUCCESS
}
