//! The TOSCA case corpus: every `tests/cases/*.yaml` file is a list of
//! cases, each run as its own named test (`<file>::<case>`).
//!
//! A case is a service `template` (text), optional `files` it imports (name
//! to text, written next to it), and the exact set of `problems` the checker
//! reports, each as `path kind` (an empty list: the template is valid).
//!
//! `deviation: reason` marks a case where vetro is known to differ from the
//! reference checker: it must still fail, and the reason is printed.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use vetro_diag::SourceMap;
use vetro_tosca::Checker;
use vetro_yaml::Node;

fn main() {
    vetro_testcases::run_each(env!("CARGO_MANIFEST_DIR"), |n| {
        let files = n
            .get("files")
            .and_then(Node::as_map)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.as_str()?.to_string(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let problems = n
            .get("problems")
            .and_then(Node::as_seq)
            .ok_or("no problems list")?
            .iter()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect();
        let case = Case {
            template: n.str("template").unwrap_or_default().to_string(),
            files,
            problems,
        };
        Ok(Box::new(move || check(&case)))
    })
}

struct Case {
    template: String,
    files: Vec<(String, String)>,
    problems: BTreeSet<String>,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static CHECKER: Checker = Checker::new(&mut SourceMap::new()).expect("the bundled grammar loads");
}

/// A fresh directory holding the template as `main.yaml` and its files.
fn write_case(case: &Case) -> Result<PathBuf, String> {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("vetro-tosca-corpus-{}-{n}", std::process::id()));
    let files = case.files.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    for (name, body) in std::iter::once(("main.yaml", case.template.as_str())).chain(files) {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap_or(&dir)).map_err(|e| e.to_string())?;
        std::fs::write(&path, body).map_err(|e| e.to_string())?;
    }
    Ok(dir)
}

fn check(case: &Case) -> Result<(), String> {
    let dir = write_case(case)?;
    // The grammar is compiled once per thread: compiling it dominates a case.
    let report =
        CHECKER.with(|checker| checker.validate(&dir.join("main.yaml"), &mut SourceMap::new()));
    std::fs::remove_dir_all(&dir).ok();
    let got: BTreeSet<String> = report
        .problems
        .iter()
        .map(|d| {
            format!("{} {}", d.path.clone().unwrap_or_default(), d.kind)
                .trim()
                .to_string()
        })
        .collect();
    if got == case.problems {
        Ok(())
    } else {
        Err(format!("want {:?}\n got {:?}", case.problems, got))
    }
}
