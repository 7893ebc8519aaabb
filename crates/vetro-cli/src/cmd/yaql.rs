//! `vetro yaql`: evaluate a YAQL expression against a JSON/YAML document, or
//! run the conformance batch protocol (`--batch`).

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use vetro_yaql::{json, Engine, EngineOptions, Error, Value};

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
    /// Run the JSON Lines batch protocol on stdin.
    #[arg(long)]
    batch: bool,
}

pub fn run(args: Args) -> ExitCode {
    // Deep expressions are safe on the main thread: the evaluator grows its
    // stack on demand and reports `recursion` at the configured depth.
    run_inner(args)
}

fn run_inner(args: Args) -> ExitCode {
    if args.batch {
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return match vetro_yaql::batch::run(stdin.lock(), stdout.lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vetro yaql: {e}");
                ExitCode::from(2)
            }
        };
    }
    let opts = EngineOptions {
        legacy: args.legacy,
        legacy_context: args.legacy,
        allow_delegates: true,
        delegates: true,
        format: true,
        yaql: vetro_yaql::Options {
            convert_tuples_to_lists: true,
            iterable_dicts: args.legacy,
            ..Default::default()
        },
        ..Default::default()
    };
    let engine = Engine::new(opts);
    let data = match &args.data {
        None => Value::Null,
        Some(path) => match load_data(path) {
            Ok(v) => v,
            Err(msg) => {
                eprintln!("vetro yaql: {msg}");
                return ExitCode::from(2);
            }
        },
    };
    let mut vars: Vec<(String, Value)> = Vec::new();
    for s in &args.set {
        let Some((name, text)) = s.split_once('=') else {
            eprintln!("vetro yaql: --set expects NAME=JSON, got {s:?}");
            return ExitCode::from(2);
        };
        let value = serde_json::from_str::<serde_json::Value>(text)
            .map_err(|e| e.to_string())
            .and_then(|j| json::decode(&j).map_err(|e| e.to_string()))
            .unwrap_or_else(|_| Value::from(text));
        vars.push((name.to_string(), value));
    }
    let format = args.format.as_deref().unwrap_or("text");
    match &args.expr {
        Some(expr) => evaluate(&engine, expr, data, &vars, format),
        None if std::io::stdin().is_terminal() => shell(&engine, data, &vars, format),
        None => {
            let mut text = String::new();
            if std::io::stdin().read_to_string(&mut text).is_err() {
                return ExitCode::from(2);
            }
            evaluate(&engine, text.trim(), data, &vars, format)
        }
    }
}

fn load_data(path: &str) -> Result<Value, String> {
    let text = if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| e.to_string())?;
        s
    } else {
        std::fs::read_to_string(PathBuf::from(path)).map_err(|e| format!("{path}: {e}"))?
    };
    if let Ok(j) = serde_json::from_str::<serde_json::Value>(&text) {
        return json::decode(&j).map_err(|e| e.to_string());
    }
    let mut sources = vetro_yaml::SourceMap::new();
    let id = sources.add(path.to_string(), text);
    let docs =
        vetro_yaml::load_str(&sources, id, &vetro_yaml::LoadOptions::default()).map_err(|d| {
            d.iter()
                .map(|x| x.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        })?;
    let doc = docs.into_iter().next().map(|n| vetro_yaml::to_json(&n));
    json::decode(&doc.unwrap_or(serde_json::Value::Null)).map_err(|e| e.to_string())
}

fn print_value(v: &Value, format: &str) {
    let j = json::to_plain_json(v);
    if format == "yaml" {
        let node = vetro_yaml::from_json(&j, vetro_yaml::Span::default());
        print!("{}", vetro_yaml::to_yaml_string(&node));
    } else {
        println!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
    }
}

fn print_error(expr: &str, e: &Error, format: &str) {
    if format == "json" {
        let j = serde_json::json!({"error": {
            "kind": e.kind.as_str(), "message": e.message, "position": e.position}});
        println!("{j}");
    } else {
        eprintln!("{}", e.render(expr));
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
    match engine
        .parse(expr)
        .and_then(|e| engine.evaluate(&e, data, &vars))
    {
        Ok(v) => {
            print_value(&v, format);
            ExitCode::SUCCESS
        }
        Err(e) => {
            print_error(expr, &e, format);
            ExitCode::from(1)
        }
    }
}

/// The interactive shell: line editing and history (kept in
/// `~/.vetro_yaql_history`); a line ending in `\` continues on the next one.
fn shell(engine: &Engine, data: Value, vars: &[(String, Value)], format: &str) -> ExitCode {
    let Ok(mut editor) = rustyline::DefaultEditor::new() else {
        eprintln!("vetro yaql: cannot start the interactive shell on this terminal");
        return ExitCode::from(2);
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
