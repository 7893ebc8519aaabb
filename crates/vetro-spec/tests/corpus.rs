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

use serde_json::Value as Json;
use std::collections::HashMap;
use vetro_diag::SourceMap;
use vetro_spec::plugin::invoke::{invoke, IrOutcome, IrRequest};
use vetro_spec::plugin::spec::load_plugin;
use vetro_yaml::Node;

fn main() {
    vetro_testcases::run_each(env!("CARGO_MANIFEST_DIR"), |n| {
        let expect = match (n.get("vars"), n.text("error")) {
            (Some(v), None) => Ok(vetro_yaml::to_json(v)),
            (None, Some(e)) => Err(e),
            _ => return Err("needs exactly one of vars and error".into()),
        };
        let case = Case {
            options: n.text("options").unwrap_or_default(),
            files: pairs(&n.node, "files"),
            env: pairs(&n.node, "env").into_iter().collect(),
            args: n
                .get("args")
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .filter_map(Node::scalar_text)
                .collect(),
            expect,
        };
        Ok(Box::new(move || check(&case)))
    })
}

struct Case {
    options: String,
    files: Vec<(String, String)>,
    env: HashMap<String, String>,
    args: Vec<String>,
    expect: Result<Json, String>,
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
        (Err(class), Err(e)) if e.class.label() == class => Ok(()),
        (Err(class), Err(e)) => Err(format!(
            "want {class}, got {}: {}",
            e.class.label(),
            e.message
        )),
        (_, Ok(other)) => Err(format!("unexpected outcome {other:?}")),
        (Ok(_), Err(e)) => Err(format!(
            "unexpected {} error: {}",
            e.class.label(),
            e.message
        )),
    }
}
