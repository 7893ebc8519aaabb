//! The plugin case corpus: every `tests/cases/*.yaml` file is a list of
//! cases, each run as its own named test (`<file>::<case>`).
//!
//! A case declares the `options` of a plugin of type `test` (YAML text under
//! the one group's `options:`; the shared groups are included), optional
//! `files` of the plugin folder (path to text) and `env`, runs it with `args`,
//! and expects either the `vars` tree (JSON; the plugin folder's path is
//! written `DIR`) or the class of the `error` (`invalid_value`, ...).
//!
//! `deviation: reason` marks a case where vetro is known to differ from
//! InfraRed: it must still fail, and the reason is printed.

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value as Json;
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use vetro_diag::SourceMap;
use vetro_spec::plugin::invoke::{invoke, IrOutcome, IrRequest};
use vetro_spec::plugin::spec::load_plugin;
use vetro_yaml::{LoadOptions, Node};

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    match load_dir(&dir) {
        Ok(trials) => libtest_mimic::run(&args, trials).exit(),
        Err(e) => {
            eprintln!("corpus: {e}");
            std::process::exit(2);
        }
    }
}

struct Case {
    options: String,
    files: Vec<(String, String)>,
    env: HashMap<String, String>,
    args: Vec<String>,
    expect: Result<Json, String>,
    deviation: Option<String>,
}

fn text(n: &Node, key: &str) -> Option<String> {
    n.get(key).and_then(Node::scalar_text)
}

fn pairs(n: &Node, key: &str) -> Vec<(String, String)> {
    n.get(key)
        .and_then(Node::as_map)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.scalar_text()?, v.scalar_text()?)))
                .collect()
        })
        .unwrap_or_default()
}

fn load_dir(dir: &Path) -> Result<Vec<Trial>, String> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    let mut trials = Vec::new();
    for path in paths {
        let family = path.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut sources = SourceMap::new();
        let id = sources.add(path.display().to_string(), src);
        let docs = vetro_yaml::load_str(&sources, id, &LoadOptions::default())
            .map_err(|d| format!("{}: {}", path.display(), d[0].message))?;
        let mut seen = BTreeSet::new();
        for n in docs.first().and_then(Node::as_seq).unwrap_or(&[]) {
            let name =
                text(n, "name").ok_or(format!("{}: a case without a name", path.display()))?;
            if !seen.insert(name.clone()) {
                return Err(format!("{}: duplicate case {name}", path.display()));
            }
            let expect = match (n.get("vars"), text(n, "error")) {
                (Some(v), None) => Ok(vetro_yaml::to_json(v)),
                (None, Some(e)) => Err(e),
                _ => {
                    return Err(format!(
                        "{}: {name}: needs exactly one of vars and error",
                        path.display()
                    ))
                }
            };
            let case = Case {
                options: text(n, "options").unwrap_or_default(),
                files: pairs(n, "files"),
                env: pairs(n, "env").into_iter().collect(),
                args: n
                    .get("args")
                    .and_then(Node::as_seq)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(Node::scalar_text)
                    .collect(),
                expect,
                deviation: text(n, "deviation"),
            };
            trials.push(Trial::test(format!("{family}::{name}"), move || run(&case)));
        }
    }
    Ok(trials)
}

fn spec_text(options: &str) -> String {
    let opts: String = options
        .lines()
        .map(|l| format!("          {l}\n"))
        .collect();
    format!(
        "config:\n  plugin_type: test\nsubparsers:\n  demo:\n    description: A demo\n    \
         include_groups: [\"Ansible options\", \"Inventory\", \"Common options\", \"Answers file\"]\n    \
         groups:\n      - title: Main\n        options:\n{opts}"
    )
}

/// Paths inside the plugin folder written as `DIR/...`.
fn relative(v: Json, dir: &str) -> Json {
    match v {
        Json::String(s) => Json::String(s.replace(dir, "DIR")),
        Json::Array(a) => Json::Array(a.into_iter().map(|x| relative(x, dir)).collect()),
        Json::Object(m) => Json::Object(
            m.into_iter()
                .map(|(k, x)| (k.replace(dir, "DIR"), relative(x, dir)))
                .collect(),
        ),
        other => other,
    }
}

fn check(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let files = [
        ("plugin.spec".to_string(), spec_text(&case.options)),
        ("main.yml".into(), "- hosts: localhost\n".into()),
    ];
    for (path, body) in files.iter().chain(&case.files) {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(p, body).map_err(|e| e.to_string())?;
    }
    let mut sources = SourceMap::new();
    let outcome = load_plugin(dir.path(), &mut sources).and_then(|plugin| {
        let req = IrRequest {
            args: case.args.clone(),
            cwd: dir.path().to_path_buf(),
            env: case.env.clone(),
        };
        invoke(&plugin, &req, &mut sources)
    });
    let d = dir.path().display().to_string();
    match (&case.expect, outcome) {
        (Ok(want), Ok(IrOutcome::Vars(v))) => {
            let got = relative(v.vars, &d);
            if *want == got {
                Ok(())
            } else {
                Err(format!("want {want}\n got {got}"))
            }
        }
        (Err(class), Err(e)) if e.class.as_str() == class => Ok(()),
        (Err(class), Err(e)) => Err(format!(
            "want {class}, got {}: {}",
            e.class.as_str(),
            e.message
        )),
        (_, Ok(other)) => Err(format!("unexpected outcome {other:?}")),
        (Ok(_), Err(e)) => Err(format!(
            "unexpected {} error: {}",
            e.class.as_str(),
            e.message
        )),
    }
}

fn run(case: &Case) -> Result<(), Failed> {
    match (&case.deviation, check(case)) {
        (None, r) => r.map_err(Failed::from),
        (Some(why), Err(got)) => {
            println!("known deviation: {why}; {got}");
            Ok(())
        }
        (Some(why), Ok(())) => {
            Err(format!("marked as a deviation ({why}) but now passes: remove the mark").into())
        }
    }
}
