//! The MuranoPL case corpus: every `tests/cases/*.yaml` file is a list of
//! cases, each run as its own named test (`<file>::<case>`).
//!
//! Each file becomes one package (`corpus.<file>`) with one class per case,
//! named after the case, whose method `run` has the case's `body` (MuranoPL
//! text). A case may add `arguments` and `methods` (text under `Methods:`),
//! `properties` (text under `Properties:`), `extends`, `model` (properties
//! of the object in the object model) and `classes` (more class documents,
//! each with its own `Name`). It expects either the `result` of `run` (as
//! JSON), or the `error` it raises (the exception's class name, short or
//! qualified).
//!
//! `deviation: reason` marks a case where vetro is known to differ from the
//! reference: it must still fail, and the reason is printed.

use serde_json::{json, Value as Json};
use std::sync::Arc;
use vetro_diag::SourceMap;
use vetro_dsl::cloud::SimulatedCloud;
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::package::{Package, PackageFiles};
use vetro_testcases::{CaseFile, Check};
use vetro_yaml::Node;

fn main() {
    vetro_testcases::run(env!("CARGO_MANIFEST_DIR"), |file| {
        let (lib, cases) = load_file(file)?;
        let lib = Arc::new(lib);
        Ok(cases
            .into_iter()
            .map(|case| {
                let lib = lib.clone();
                Box::new(move || check(&lib, &case)) as Check
            })
            .collect())
    })
}

struct Case {
    model: Json,
    expect: Result<Json, String>,
}

fn text(n: &Node, key: &str) -> Option<String> {
    n.get(key).and_then(Node::scalar_text)
}

/// Indent every line of `body` by `by` spaces.
fn indent(body: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    body.lines()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The class text of one case.
fn class_text(n: &Node, class: &str) -> String {
    let mut out = format!("Namespaces:\n  =: corpus\n  std: io.murano\n  py: ''\nName: {class}\n");
    if let Some(e) = text(n, "extends") {
        out += &format!("Extends: {e}\n");
    }
    if let Some(p) = text(n, "properties") {
        out += &format!("Properties:\n{}\n", indent(&p, 2));
    }
    out += "Methods:\n  run:\n    Scope: Public\n";
    if let Some(a) = text(n, "arguments") {
        out += &format!("    Arguments:\n{}\n", indent(&a, 6));
    }
    out += &format!(
        "    Body:\n{}\n",
        indent(&text(n, "body").unwrap_or_default(), 6)
    );
    if let Some(m) = text(n, "methods") {
        out += &format!("{}\n", indent(&m, 2));
    }
    if let Some(more) = text(n, "classes") {
        out += &format!("---\n{more}\n");
    }
    out
}

/// The file as one package (a class per case), and what each case expects.
fn load_file(file: &CaseFile) -> Result<(Library, Vec<Case>), String> {
    let family = file.family.replace('-', "_");
    let mut files = PackageFiles::new();
    let mut manifest =
        format!("Format: MuranoPL/1.4\nFullName: corpus.{family}\nVersion: 1.0.0\nClasses:\n");
    let mut cases = Vec::new();
    for case in &file.cases {
        let (n, name) = (&case.node, &case.name);
        let class = format!("corpus.{name}");
        let path = format!("Classes/{name}.yaml");
        manifest += &format!("  {class}: {name}.yaml\n");
        for extra in text(n, "classes").unwrap_or_default().lines() {
            if let Some(c) = extra.strip_prefix("Name: ") {
                let c = c.trim();
                let full = if c.contains('.') {
                    c.to_string()
                } else {
                    format!("corpus.{c}")
                };
                manifest += &format!("  {full}: {name}.yaml\n");
            }
        }
        files.insert(path, class_text(n, name).into_bytes());
        let mut model = json!({"?": {"id": "case", "type": class}});
        if let Some(Json::Object(props)) = n.get("model").map(vetro_yaml::to_json) {
            model.as_object_mut().unwrap().extend(props);
        }
        let expect = match (n.get("result"), text(n, "error")) {
            (Some(r), None) => Ok(vetro_yaml::to_json(r)),
            (None, Some(e)) => Err(e),
            _ => return Err(format!("{name}: needs exactly one of result and error")),
        };
        cases.push(Case { model, expect });
    }
    files.insert("manifest.yaml".into(), manifest.into_bytes());
    let mut sources = SourceMap::new();
    let pkg = Package::load_files(&family, files, &mut sources);
    let lib = Library::from_packages(vec![pkg], sources);
    let problems: Vec<String> = lib
        .problems()
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect();
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok((lib, cases))
}

fn check(lib: &Library, case: &Case) -> Result<(), String> {
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    // A model that does not load (a property contract fails) is the error.
    let result = host::run(lib, &case.model, &Target::Root, "run", h).and_then(|out| out.result);
    match (&case.expect, result) {
        (Ok(want), Ok(got)) if *want == got => Ok(()),
        (Ok(want), Ok(got)) => Err(format!("want {want}, got {got}")),
        (Ok(want), Err(e)) => Err(format!("want {want}, got {:?}: {}", e.names(), e.message())),
        (Err(want), Err(e))
            if e.names()
                .iter()
                .any(|n| n == want || n.rsplit('.').next() == Some(want)) =>
        {
            Ok(())
        }
        (Err(want), Err(e)) => Err(format!("want {want}, got {:?}: {}", e.names(), e.message())),
        (Err(want), Ok(got)) => Err(format!("want {want}, got {got}")),
    }
}
