//! Settings-tree specs that used to be accepted wrongly or to hang/panic:
//! an option called `help`, `short: h`, duplicate names and shorts, unknown
//! types, and directory symlinks that loop back up the tree.

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};
use vetro_diag::SourceMap;
use vetro_spec::{Engine, ErrorClass, Outcome, Request};

/// A settings tree with command `app` whose `app.spec` is `spec`.
fn tree(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("app")).unwrap();
    fs::write(dir.path().join("app/app.spec"), spec).unwrap();
    dir
}

fn run(root: &Path, args: &[&str]) -> Result<Outcome, vetro_spec::SpecError> {
    let req = Request {
        settings_root: root.to_path_buf(),
        args: args.iter().map(|s| s.to_string()).collect(),
        cwd: root.to_path_buf(),
        env: HashMap::new(),
    };
    Engine::default().run(&req, &mut SourceMap::new())
}

/// The spec error of `app.spec`, as `LINE:COL: message`.
fn spec_error(spec: &str) -> String {
    let dir = tree(spec);
    let err = run(dir.path(), &["app", "sub", "--help"]).expect_err("spec must be refused");
    assert_eq!(err.class, ErrorClass::SpecError, "{err}");
    let span = err.span.expect("a position");
    format!("{}:{}: {}", span.line, span.col, err.message)
}

const SUB: &str = "subparsers:\n  sub:\n    options:\n";

#[test]
fn option_called_help_is_a_spec_error() {
    let msg = spec_error(&format!("{SUB}      help: {{type: Value}}\n"));
    assert_eq!(
        msg,
        "4:7: subcommand 'sub': an option cannot be called 'help' (it is the built-in -h/--help)"
    );
    let top = spec_error("options:\n  help: {action: store_true}\nsubparsers:\n  sub: {}\n");
    assert!(
        top.starts_with("2:3: command 'app': an option cannot be called 'help'"),
        "{top}"
    );
}

#[test]
fn short_h_is_a_spec_error() {
    let msg = spec_error(&format!("{SUB}      host: {{type: Value, short: h}}\n"));
    assert!(
        msg.starts_with("4:7: subcommand 'sub': option 'host' cannot use short 'h'"),
        "{msg}"
    );
}

#[test]
fn duplicate_names_and_shorts_are_spec_errors() {
    let dup = spec_error(
        "subparsers:\n  sub:\n    groups:\n      - title: A\n        options:\n          x: {type: Value}\n    options:\n      x: {type: Value}\n",
    );
    assert_eq!(dup, "8:7: subcommand 'sub': option 'x' is defined twice");
    let shorts = spec_error(&format!(
        "{SUB}      aa: {{type: Value, short: a}}\n      ab: {{type: Value, short: a}}\n"
    ));
    assert_eq!(
        shorts,
        "5:7: subcommand 'sub': short '-a' of option 'ab' is already used by option 'aa'"
    );
}

#[test]
fn unknown_types_are_spec_errors() {
    let msg = spec_error(&format!("{SUB}      name: {{type: Valeu}}\n"));
    assert!(msg.starts_with("4:7: unknown type 'Valeu' of option 'name' (known types: DictValue, ListOfYamls, Topology, Value, YamlFile, int, float, str, AdditionalArgs)"), "{msg}");
    let dir = tree(&format!(
        "{SUB}      n: {{type: int}}\n      s: {{type: str}}\n"
    ));
    assert!(run(dir.path(), &["app", "sub", "--n=1"]).is_ok());
}

#[cfg(unix)]
#[test]
fn symlink_loops_do_not_hang_the_walk() {
    let dir = tree(&format!("{SUB}      name: {{type: Value, default: x}}\n"));
    let app = dir.path().join("app");
    std::os::unix::fs::symlink("..", app.join("up1")).unwrap();
    std::os::unix::fs::symlink("..", app.join("up2")).unwrap();
    std::os::unix::fs::symlink(".", app.join("here")).unwrap();
    let start = Instant::now();
    match run(dir.path(), &["app", "sub"]) {
        Ok(Outcome::Settings(r)) => assert_eq!(r.settings["app"]["name"], "x"),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(5));
}
