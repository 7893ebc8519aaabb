//! The TOSCA case corpus: every `tests/cases/*.yaml` file is a list of
//! cases, each run as its own named test (`<file>::<case>`).
//!
//! A case is a service `template` (text), optional `files` it imports (name
//! to text, written next to it), and the exact set of `problems` the checker
//! reports, each as `path kind` (an empty list: the template is valid).
//!
//! `deviation: reason` marks a case where vetro is known to differ from the
//! reference checker: it must still fail, and the reason is printed.

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use vetro_diag::SourceMap;
use vetro_tosca::Checker;
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
    template: String,
    files: Vec<(String, String)>,
    problems: BTreeSet<String>,
    deviation: Option<String>,
}

fn text(n: &Node, key: &str) -> Option<String> {
    n.get(key).and_then(Node::as_str).map(str::to_string)
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
            let files = n
                .get("files")
                .and_then(Node::as_map)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| {
                            Some((k.as_str()?.to_string(), v.as_str()?.to_string()))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let problems = n
                .get("problems")
                .and_then(Node::as_seq)
                .ok_or(format!("{}: {name}: no problems list", path.display()))?
                .iter()
                .filter_map(|p| p.as_str().map(str::to_string))
                .collect();
            let case = Case {
                template: text(n, "template").unwrap_or_default(),
                files,
                problems,
                deviation: text(n, "deviation"),
            };
            trials.push(Trial::test(format!("{family}::{name}"), move || run(&case)));
        }
    }
    Ok(trials)
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
