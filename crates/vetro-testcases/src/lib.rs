//! The machinery every part's case corpus shares: each `tests/cases/*.yaml`
//! file of a crate is a list of cases (YAML mappings with a `name`), and each
//! case runs as its own test named `<file>::<case>` under `libtest-mimic`.
//!
//! A crate's `tests/corpus.rs` (a `harness = false` test) only says how to
//! turn a case into a check:
//!
//! ```no_run
//! // tests/corpus.rs
//! vetro_testcases::run_each(env!("CARGO_MANIFEST_DIR"), |case| {
//!     let expr = case.text("expr").ok_or("no expr")?;
//!     Ok(Box::new(move || if expr.is_empty() { Err("empty".into()) } else { Ok(()) }))
//! })
//! ```
//!
//! Preparing a check reads the case's fields and may fail (a malformed case
//! stops the whole run with exit code 2, naming the file and the case); the
//! check itself runs as the test and returns the failure message.
//!
//! `deviation: reason` marks a case where the part is known to differ from
//! the reference: the check must still fail, and the reason is printed. A
//! fixed deviation fails the run until its mark is removed.

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use vetro_diag::SourceMap;
use vetro_yaml::{LoadOptions, Node};

/// A case's check: `Err` carries the failure message.
pub type Check = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// One case file, `tests/cases/<family>.yaml`.
#[derive(Debug)]
pub struct CaseFile {
    /// The file name without `.yaml`: the first part of every test name.
    pub family: String,
    pub path: PathBuf,
    /// The cases in file order; every one has a name, no name twice.
    pub cases: Vec<Case>,
}

/// One case: its name and the whole mapping it was written as.
#[derive(Debug)]
pub struct Case {
    pub name: String,
    pub node: Node,
}

impl Case {
    /// A scalar field as text (numbers and booleans too, in Python's spelling).
    pub fn text(&self, key: &str) -> Option<String> {
        self.node.get(key).and_then(Node::scalar_text)
    }

    /// A field that must be a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.node.get(key).and_then(Node::as_str)
    }

    /// A field's node.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.node.get(key)
    }

    /// Why the part is known to differ from the reference on this case.
    pub fn deviation(&self) -> Option<String> {
        self.text("deviation")
    }
}

/// Runs every case of `<manifest_dir>/tests/cases`, each prepared on its own.
pub fn run_each(manifest_dir: &str, mut prepare: impl FnMut(&Case) -> Result<Check, String>) -> ! {
    run(manifest_dir, |file| {
        file.cases
            .iter()
            .map(|case| prepare(case).map_err(|e| format!("{}: {e}", case.name)))
            .collect()
    })
}

/// Runs every case of `<manifest_dir>/tests/cases`, prepared a file at a time
/// (for parts that build one thing, such as a package, from a whole file):
/// `prepare` returns one check per case, in the file's order.
pub fn run(manifest_dir: &str, prepare: impl FnMut(&CaseFile) -> Result<Vec<Check>, String>) -> ! {
    let args = Arguments::from_args();
    let dir = Path::new(manifest_dir).join("tests/cases");
    match trials(&dir, prepare) {
        Ok(trials) => libtest_mimic::run(&args, trials).exit(),
        Err(e) => {
            eprintln!("corpus: {e}");
            std::process::exit(2);
        }
    }
}

/// One named test per case of every file in `dir`, files in name order.
pub fn trials(
    dir: &Path,
    mut prepare: impl FnMut(&CaseFile) -> Result<Vec<Check>, String>,
) -> Result<Vec<Trial>, String> {
    let mut trials = Vec::new();
    for path in case_files(dir)? {
        let file = load_file(&path)?;
        let checks = prepare(&file).map_err(|e| format!("{}: {e}", path.display()))?;
        if checks.len() != file.cases.len() {
            return Err(format!(
                "{}: {} checks for {} cases",
                path.display(),
                checks.len(),
                file.cases.len()
            ));
        }
        for (case, check) in file.cases.into_iter().zip(checks) {
            let name = format!("{}::{}", file.family, case.name);
            let deviation = case.deviation();
            trials.push(Trial::test(name.clone(), move || {
                judge(&name, deviation, check())
            }));
        }
    }
    Ok(trials)
}

/// The `*.yaml` files of `dir`, sorted.
fn case_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Reads one case file: a YAML list of mappings, each with a unique `name`.
pub fn load_file(path: &Path) -> Result<CaseFile, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let family = path
        .file_stem()
        .ok_or_else(|| at("no file name".into()))?
        .to_string_lossy()
        .into_owned();
    let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
    let mut sources = SourceMap::new();
    let id = sources.add(path.display().to_string(), text);
    let docs = vetro_yaml::load_str(&sources, id, &LoadOptions::default())
        .map_err(|d| at(d.first().map(|d| d.message.clone()).unwrap_or_default()))?;
    let mut seen = BTreeSet::new();
    let mut cases = Vec::new();
    for node in docs.first().and_then(Node::as_seq).unwrap_or(&[]) {
        let name = node
            .get("name")
            .and_then(Node::scalar_text)
            .ok_or_else(|| at("a case without a name".into()))?;
        if !seen.insert(name.clone()) {
            return Err(at(format!("duplicate case {name}")));
        }
        cases.push(Case {
            name,
            node: node.clone(),
        });
    }
    Ok(CaseFile {
        family,
        path: path.to_path_buf(),
        cases,
    })
}

/// A case's outcome, given its deviation mark.
fn judge(name: &str, deviation: Option<String>, outcome: Result<(), String>) -> Result<(), Failed> {
    match (deviation, outcome) {
        (None, r) => r.map_err(Failed::from),
        (Some(why), Err(got)) => {
            println!("known deviation ({name}): {why}; {got}");
            Ok(())
        }
        (Some(why), Ok(())) => {
            Err(format!("marked as a deviation ({why}) but now passes: remove the mark").into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deviation_must_fail() {
        assert!(judge("f::c", Some("why".into()), Err("got".into())).is_ok());
        assert!(judge("f::c", Some("why".into()), Ok(())).is_err());
        assert!(judge("f::c", None, Err("got".into())).is_err());
        assert!(judge("f::c", None, Ok(())).is_ok());
    }

    #[test]
    fn names_are_unique_and_required() {
        let dir = std::env::temp_dir().join(format!("vetro-testcases-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("ok.yaml");
        std::fs::write(&ok, "- name: a\n- name: 2\n").unwrap();
        let file = load_file(&ok).unwrap();
        assert_eq!(file.family, "ok");
        let names: Vec<_> = file.cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "2"]);
        let twice = dir.join("twice.yaml");
        std::fs::write(&twice, "- name: a\n- name: a\n").unwrap();
        assert!(load_file(&twice).unwrap_err().contains("duplicate case a"));
        let nameless = dir.join("nameless.yaml");
        std::fs::write(&nameless, "- expr: 1\n").unwrap();
        assert!(load_file(&nameless).unwrap_err().contains("without a name"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
