//! End-to-end runs of the engine over a small settings tree written here.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use vetro_diag::SourceMap;
use vetro_spec::{Engine, ErrorClass, Outcome, Request};

const BASE: &str = r#"
include_groups: ["Logging"]
shared_groups:
  - title: Logging
    options:
      trace:
        short: t
        action: store_true
  - title: Files
    options:
      input:
        action: append
        short: i
      extra-vars:
        action: append
        short: e
      load-ini:
        action: read-config
      write-ini:
        action: generate-config
"#;

const SHIP: &str = r#"
options:
  zone:
    type: Value
    default: north
subparsers:
  boat:
    help: Sail a boat
    include_groups: ["Files"]
    groups:
      - title: Hull
        options:
          hull-name:
            type: Value
            required: yes
          hull-length:
            type: int
            default: 12
          hull-colour:
            type: Value
            choices: [red, blue]
            default: red
          crew:
            type: Topology
          paint:
            type: YamlFile
          port-tags:
            type: DictValue
      - title: Flags
        options:
          dock:
            action: store_true
            silent: [hull-name]
          harbour:
            type: Value
            required_when: "hull-colour == blue"
"#;

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let s = dir.path().join("settings");
    fs::create_dir_all(s.join("ship/boat/paint")).unwrap();
    fs::create_dir_all(s.join("ship/topology")).unwrap();
    fs::write(s.join("base.spec"), BASE).unwrap();
    fs::write(s.join("ship/ship.spec"), SHIP).unwrap();
    fs::write(
        s.join("ship/boat/boat.yml"),
        "ship:\n  motto: \"{{ !lookup ship.hull.name }} of the {{ !lookup ship.zone }}\"\n  list: [a]\n",
    )
    .unwrap();
    fs::write(s.join("ship/boat/paint/gloss.yml"), "finish: gloss\n").unwrap();
    fs::write(s.join("ship/topology/sailor.yml"), "rank: deck\n").unwrap();
    dir
}

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<Outcome, vetro_spec::SpecError> {
    let req = Request {
        settings_root: dir.join("settings"),
        args: args.iter().map(|s| s.to_string()).collect(),
        cwd: dir.to_path_buf(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
    };
    Engine::default().run(&req, &mut SourceMap::new())
}

fn settings(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    match run(dir, args, env) {
        Ok(Outcome::Settings(r)) => r.settings,
        other => panic!("expected settings, got {other:?}"),
    }
}

fn class(dir: &Path, args: &[&str]) -> ErrorClass {
    match run(dir, args, &[]) {
        Err(e) => e.class,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn defaults_skeleton_and_lookups() {
    let d = tree();
    let s = settings(d.path(), &["ship", "boat", "--hull-name=Ada"], &[]);
    assert_eq!(
        s,
        json!({"ship": {"motto": "Ada of the north", "list": ["a"], "zone": "north",
                         "hull": {"name": "Ada", "colour": "red"}}})
    );
}

#[test]
fn precedence_cli_ini_env_default() {
    let d = tree();
    fs::write(d.path().join("c.ini"), "[boat]\nhull-name = FromIni\n").unwrap();
    let s = settings(
        d.path(),
        &["ship", "boat", "--load-ini=c.ini"],
        &[("HULL_NAME", "FromEnv"), ("ZONE", "south")],
    );
    assert_eq!(s["ship"]["hull"]["name"], json!("FromIni"));
    assert_eq!(s["ship"]["zone"], json!("south"));
    let s = settings(
        d.path(),
        &["ship", "boat", "--load-ini=c.ini", "--hull-n", "Cli"],
        &[("HULL_NAME", "FromEnv")],
    );
    assert_eq!(s["ship"]["hull"]["name"], json!("Cli"));
}

#[test]
fn types_resolve_files() {
    let d = tree();
    let s = settings(
        d.path(),
        &[
            "ship",
            "boat",
            "--hull-name=x",
            "--crew=sailor:03",
            "--paint=gloss.yml",
            "--port-tags=a=1;b=2",
        ],
        &[],
    );
    assert_eq!(
        s["ship"]["crew"],
        json!({"sailor": {"rank": "deck", "amount": 3}})
    );
    assert_eq!(s["ship"]["paint"], json!({"finish": "gloss"}));
    assert_eq!(s["ship"]["port"]["tags"], json!({"a": "1", "b": "2"}));
}

#[test]
fn error_classes() {
    let d = tree();
    let p = d.path();
    assert_eq!(class(p, &["ship", "boat"]), ErrorClass::MissingRequired);
    assert_eq!(
        class(p, &["ship", "boat", "--hull-name=x", "--hull-colour=blue"]),
        ErrorClass::MissingRequired
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull-colour=green"]),
        ErrorClass::InvalidChoice
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull-length=long"]),
        ErrorClass::InvalidValue
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull=x"]),
        ErrorClass::AmbiguousOption
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull-name=x", "--nope"]),
        ErrorClass::UnknownOption
    );
    assert_eq!(class(p, &["ship", "raft"]), ErrorClass::UnknownSubcommand);
    assert_eq!(class(p, &["ship"]), ErrorClass::MissingSubcommand);
    assert_eq!(class(p, &["plane", "x"]), ErrorClass::UnknownCommand);
    assert_eq!(
        class(p, &["ship", "boat", "--hull-name=x", "--crew=sailor"]),
        ErrorClass::BadTopologyFormat
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull-name=x", "--paint=matt.yml"]),
        ErrorClass::FileNotFound
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull-name=x", "--port-tags=a"]),
        ErrorClass::BadDictFormat
    );
    assert_eq!(
        class(p, &["ship", "boat", "--hull-name=x", "-e", "novalue"]),
        ErrorClass::BadExtraVars
    );
    // --dock silences hull-name; the skeleton's lookup of it then fails.
    assert_eq!(
        class(p, &["ship", "boat", "--dock"]),
        ErrorClass::LookupError
    );
}

#[test]
fn extra_vars_and_inputs() {
    let d = tree();
    fs::write(d.path().join("in.yml"), "ship:\n  list: [b]\n  extra: 1\n").unwrap();
    let s = settings(
        d.path(),
        &[
            "ship",
            "boat",
            "--hull-name=x",
            "-i",
            "in.yml",
            "-e",
            "ship.zone=east",
        ],
        &[],
    );
    assert_eq!(s["ship"]["list"], json!(["b", "a"]));
    assert_eq!(s["ship"]["zone"], json!("east"));
    assert_eq!(s["ship"]["motto"], json!("x of the east"));
}

#[test]
fn help_lists_groups() {
    let d = tree();
    match run(d.path(), &["ship", "boat", "--help"], &[]) {
        Ok(Outcome::Help(text)) => {
            assert!(text.contains("\nHull:\n"));
            assert!(text.contains("  --hull-name HULL-NAME"));
            assert!(text.contains("\nFiles:\n"));
        }
        other => panic!("expected help, got {other:?}"),
    }
}

#[test]
fn generate_config_writes_defaults() {
    let d = tree();
    match run(
        d.path(),
        &["ship", "boat", "--write-ini=g.ini", "--bogus"],
        &[],
    ) {
        Ok(Outcome::GeneratedConfig(_)) => {}
        other => panic!("expected generate-config, got {other:?}"),
    }
    let text = fs::read_to_string(d.path().join("g.ini")).unwrap();
    assert!(text.contains("[boat]"));
    assert!(text.contains("hull-length = 12"));
    assert!(text.contains("dock = False"));
    assert!(text.contains("hull-name = Required argument."));
}

#[test]
fn spec_errors_name_the_file() {
    let d = tree();
    fs::write(
        d.path().join("settings/ship/boat/bad.spec"),
        "subparsers:\n  boat:\n    include_groups: [\"Missing\"]\n",
    )
    .unwrap();
    let err = run(d.path(), &["ship", "boat", "--help"], &[]).unwrap_err();
    assert_eq!(err.class, ErrorClass::SpecError);
    assert!(err.span.is_some());
}

#[test]
fn completions_know_spec_options() {
    let d = tree();
    let script = vetro_spec::completions::script(
        &Engine::default(),
        &d.path().join("settings"),
        vetro_spec::completions::Shell::Bash,
        &mut SourceMap::new(),
    )
    .expect("script");
    assert!(script.contains("--hull-name"));
    assert!(script.contains("boat"));
}

#[test]
fn odd_option_names_do_not_break_the_parser() {
    let d = tree();
    fs::write(
        d.path().join("settings/ship/boat/odd.spec"),
        "subparsers:\n  boat:\n    options:\n      'a=b': {type: Value}\n      'ünï': {type: Value, short: 'ß'}\n      '7up': {short: '7'}\n      'x.y': {type: Value, short: x}\n",
    )
    .unwrap();
    let s = settings(
        d.path(),
        &["ship", "boat", "--hull-name=n", "--x.y=1", "-ßq"],
        &[],
    );
    assert_eq!(s["ship"]["x.y"], json!("1"));
    assert_eq!(s["ship"]["ünï"], json!("q"));
}
