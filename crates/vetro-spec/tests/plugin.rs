//! InfraRed plugins: plugin.spec loading (and its errors, with positions),
//! every option type's conversion into the vars tree, the shared groups,
//! answers files.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use tempfile::TempDir;
use vetro_diag::SourceMap;
use vetro_spec::plugin::invoke::{invoke, IrOutcome, IrRequest, IrVars};
use vetro_spec::plugin::spec::load_plugin;
use vetro_spec::plugin::Plugin;
use vetro_spec::{ErrorClass, SpecError};

/// A plugin folder holding `spec`, a `main.yml` and `files` (path, text).
fn plugin_dir(spec: &str, files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("plugin.spec"), spec).unwrap();
    std::fs::write(dir.path().join("main.yml"), "- hosts: localhost\n").unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn load(dir: &Path) -> Result<Plugin, (SpecError, SourceMap)> {
    let mut sources = SourceMap::new();
    load_plugin(dir, &mut sources).map_err(|e| (e, sources))
}

/// The error of loading `spec`, as `LINE:COL: message`.
fn load_error(spec: &str) -> String {
    let dir = plugin_dir(spec, &[]);
    let (err, _) = load(dir.path()).expect_err("the spec must be refused");
    assert_eq!(err.class, ErrorClass::SpecError, "{err}");
    match err.span {
        Some(s) => format!("{}:{}: {}", s.line, s.col, err.message),
        None => err.message,
    }
}

fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<IrOutcome, SpecError> {
    let plugin = load(dir).map_err(|(e, _)| e)?;
    let req = IrRequest {
        args: args.iter().map(|s| s.to_string()).collect(),
        cwd: dir.to_path_buf(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
    };
    invoke(&plugin, &req, &mut SourceMap::new())
}

fn vars(dir: &Path, args: &[&str]) -> IrVars {
    match run(dir, args, &[]) {
        Ok(IrOutcome::Vars(v)) => *v,
        other => panic!("expected vars, got {other:?}"),
    }
}

const HEAD: &str = "config:\n  plugin_type: test\nsubparsers:\n  demo:\n    description: A demo\n";

fn spec_with(options: &str) -> String {
    format!(
        "{HEAD}    include_groups: [\"Ansible options\", \"Inventory\", \"Common options\", \"Answers file\"]\n    groups:\n      - title: Main\n        options:\n{options}"
    )
}

#[test]
fn loads_config_and_older_top_level_type() {
    let dir = plugin_dir(&spec_with("          a: {type: Value}\n"), &[]);
    let p = load(dir.path()).unwrap();
    assert_eq!((p.name.as_str(), p.plugin_type.as_str()), ("demo", "test"));
    assert_eq!(p.parser.groups.len(), 5);
    let old = plugin_dir(
        "plugin_type: other\nsubparsers:\n  old:\n    description: d\n    options:\n      x: {type: Value}\n",
        &[],
    );
    assert_eq!(load(old.path()).unwrap().plugin_type, "other");
}

#[test]
fn spec_errors_carry_positions() {
    let unknown_type = load_error(&spec_with("          a: {type: Valu}\n"));
    assert!(
        unknown_type.starts_with("10:21: unknown type 'Valu' of option 'a'"),
        "{unknown_type}"
    );
    let when = load_error(&spec_with(
        "          a:\n            type: Value\n            required_when: \"nope == x\"\n",
    ));
    assert!(
        when.starts_with("10:11: required_when of option 'a' ('nope == x') names 'nope'"),
        "{when}"
    );
    let dup = load_error(&spec_with("          a: {type: Value}\n      - title: Two\n        options:\n          a: {type: Bool}\n"));
    assert!(
        dup.starts_with("13:11: plugin 'demo': option 'a' is defined twice"),
        "{dup}"
    );
    let short = load_error(&spec_with(
        "          a: {type: Value, short: x}\n          b: {type: Value, short: x}\n",
    ));
    assert!(
        short.starts_with(
            "11:11: plugin 'demo': short '-x' of option 'b' is already used by option 'a'"
        ),
        "{short}"
    );
    let shared = load_error(&spec_with("          o: {type: Value, short: o}\n"));
    assert!(shared.contains("short '-o' of option 'o' is already used by option 'output' (by an included shared group)"), "{shared}");
    let h = load_error(&spec_with("          a: {type: Value, short: h}\n"));
    assert!(
        h.starts_with("10:11: plugin 'demo': option 'a' cannot use short 'h'"),
        "{h}"
    );
    let help = load_error(&spec_with("          help: {type: Value}\n"));
    assert!(
        help.starts_with("10:11: plugin 'demo': an option cannot be called 'help'"),
        "{help}"
    );
    let group = load_error(&format!("{HEAD}    include_groups: [\"Nope\"]\n"));
    assert!(
        group.starts_with("6:22: include_groups names the unknown shared group 'Nope'"),
        "{group}"
    );
    let top = load_error(&format!("{HEAD}shared_groups: []\n"));
    assert!(
        top.starts_with("6:1: unknown key 'shared_groups' in the plugin.spec top level"),
        "{top}"
    );
    let kind =
        load_error("config:\n  plugin_type: deploy\nsubparsers:\n  x:\n    description: d\n");
    assert!(
        kind.starts_with("2:16: unknown plugin_type 'deploy'"),
        "{kind}"
    );
    let nodesc = load_error("config:\n  plugin_type: test\nsubparsers:\n  x:\n    options: {}\n");
    assert!(
        nodesc.starts_with("4:3: subparser 'x' needs a 'description'"),
        "{nodesc}"
    );
    let two = load_error(
        "config:\n  plugin_type: test\nsubparsers:\n  x: {description: d}\n  y: {description: d}\n",
    );
    assert!(
        two.starts_with("4:3: subparsers must hold exactly one entry"),
        "{two}"
    );
    let silent = load_error(&spec_with("          a: {type: Bool, silent: [ghost]}\n"));
    assert!(
        silent.contains("silent of option 'a' names 'ghost'"),
        "{silent}"
    );
    let cond = load_error(&spec_with(
        "          a: {type: Value, required_when: \"a=b\"}\n",
    ));
    assert!(
        cond.starts_with("10:43: required_when of 'a': 'a=b' is not a condition"),
        "{cond}"
    );
}

#[test]
fn missing_playbook_and_missing_spec() {
    let dir = plugin_dir(&spec_with("          a: {type: Value}\n"), &[]);
    std::fs::remove_file(dir.path().join("main.yml")).unwrap();
    let (err, _) = load(dir.path()).unwrap_err();
    assert!(
        err.message.contains("its playbook main.yml is missing"),
        "{}",
        err.message
    );
    let empty = tempfile::tempdir().unwrap();
    let (err, _) = load(empty.path()).unwrap_err();
    assert_eq!(err.class, ErrorClass::FileNotFound);
    assert!(err.message.contains("no plugin.spec"));
}

#[test]
fn unknown_option_keys_are_warnings() {
    let dir = plugin_dir(
        &spec_with("          a: {type: Value, choises: [x]}\n"),
        &[],
    );
    let p = load(dir.path()).unwrap();
    assert_eq!(p.warnings.len(), 1);
    let w = &p.warnings[0];
    assert_eq!(w.span.map(|s| (s.line, s.col)), Some((10, 28)));
    assert!(
        w.message.contains("did you mean 'choices'"),
        "{}",
        w.message
    );
}

#[test]
fn every_type_lands_at_its_path() {
    let spec = spec_with(
        "          plain-value: {type: Value, default: 4}\n\
         \x20         flag-bool: {type: Bool, default: 'no'}\n\
         \x20         on-flag: {type: Flag}\n\
         \x20         count: {type: Int, default: '7'}\n\
         \x20         items: {type: ListValue, default: 'a,b'}\n\
         \x20         pairs: {type: KeyValueList, default: 'k:v,x:y/z'}\n\
         \x20         flat: {type: Dict, default: 'a.b=1'}\n\
         \x20         tree: {type: NestedDict, action: append}\n\
         \x20         ini: {type: IniType, default: 's.o=v'}\n\
         \x20         many: {type: NestedList}\n\
         \x20         some-file: {type: FileValue}\n\
         \x20         net: {type: VarFile, default: small}\n\
         \x20         tests: {type: ListOfVarFiles, default: 'smoke,full.yml'}\n\
         \x20         deploy-dir: {type: VarDir, default: virt}\n\
         \x20         topology-nodes: {type: ListOfTopologyFiles, default: 'controller:3,compute:2'}\n\
         \x20         custom: {type: Value, ansible_variable: my_var, default: c}\n",
    );
    let dir = plugin_dir(
        &spec,
        &[
            ("vars/net/small.yml", "n: 1\n"),
            ("vars/tests/smoke.yml", "[]\n"),
            ("defaults/tests/full.yml", "[]\n"),
            ("vars/deploy/dir/virt/x.yml", "a: 1\n"),
            ("defaults/topology/nodes/controller.yml", "{}\n"),
            ("vars/topology/nodes/compute.yml", "{}\n"),
            ("some/file/key.pem", "k\n"),
        ],
    );
    let d = dir.path().display().to_string();
    let v = vars(
        dir.path(),
        &[
            "--on-flag",
            "--tree",
            "a.b=1,2",
            "--tree",
            "a.c=3",
            "--many",
            "x=1",
            "--many",
            "y.z=2",
            "--some-file",
            "key.pem",
            "--flag-bool=yes",
            "--inventory=hosts",
            "--ansible-args=tags=a;check",
            "-vv",
        ],
    );
    let expected = json!({
        "test": {
            "plain": {"value": 4},
            "flag": {"bool": true},
            "on": {"flag": true},
            "count": 7,
            "items": ["a", "b"],
            "pairs": {"k": "v", "x": "y/z"},
            "flat": {"a.b": "1"},
            "tree": {"a": {"b": "1,2", "c": "3"}},
            "ini": {"s": {"o": "v"}},
            "many": [{"x": "1"}, {"y": {"z": "2"}}],
            "some": {"file": format!("{d}/some/file/key.pem")},
            "net": format!("{d}/vars/net/small.yml"),
            "tests": [format!("{d}/vars/tests/smoke.yml"), format!("{d}/defaults/tests/full.yml")],
            "deploy": {"dir": format!("{d}/vars/deploy/dir/virt")},
            "topology": {"nodes": {
                format!("{d}/defaults/topology/nodes/controller.yml"): 3,
                format!("{d}/vars/topology/nodes/compute.yml"): 2
            }},
        },
        "my_var": "c"
    });
    assert_eq!(v.vars, expected);
    assert_eq!(v.verbose, 2);
    assert_eq!(v.inventory, Some(dir.path().join("hosts")));
    assert_eq!(v.ansible_args, vec!["--tags", "a", "--check"]);
    assert!(!v.dry_run);
}

#[test]
fn type_errors_are_clear() {
    let spec = spec_with(
        "          b: {type: Bool}\n          nodes: {type: ListOfTopologyFiles}\n          f: {type: VarFile}\n          kv: {type: KeyValueList}\n",
    );
    let dir = plugin_dir(&spec, &[]);
    let class = |args: &[&str]| run(dir.path(), args, &[]).unwrap_err().class;
    assert_eq!(class(&["--b", "maybe"]), ErrorClass::InvalidValue);
    assert_eq!(
        class(&["--nodes", "controller"]),
        ErrorClass::BadTopologyFormat
    );
    assert_eq!(
        class(&["--nodes", "controller:x"]),
        ErrorClass::BadTopologyFormat
    );
    assert_eq!(class(&["--f", "nope"]), ErrorClass::FileNotFound);
    assert_eq!(class(&["--kv", "a=b"]), ErrorClass::BadDictFormat);
    assert_eq!(class(&["--nonsense"]), ErrorClass::UnknownOption);
}

#[test]
fn required_silent_and_required_when() {
    let spec = spec_with(
        "          need: {type: Value, required: yes}\n\
         \x20         skip: {type: Bool, default: false}\n\
         \x20         mirror: {type: Value, required_when: \"skip == True\"}\n\
         \x20         task: {type: Value}\n\
         \x20         url: {type: Value, required_when: [\"task == import\", \"skip != yes\"]}\n\
         \x20         cleanup: {type: Bool, silent: [need]}\n",
    );
    let dir = plugin_dir(&spec, &[]);
    let missing = |args: &[&str]| match run(dir.path(), args, &[]) {
        Err(e) if e.class == ErrorClass::MissingRequired => e.message,
        other => format!("{other:?}"),
    };
    assert_eq!(
        missing(&[]),
        "Required options are not set:\n * [demo]: 'need'"
    );
    assert!(missing(&["--need=x", "--skip", "yes"]).ends_with("'mirror'"));
    assert!(missing(&["--need=x", "--task", "import"]).ends_with("'url'"));
    assert!(!missing(&["--need=x", "--task", "import", "--skip", "on"]).contains("'url'"));
    let v = vars(dir.path(), &["--cleanup", "yes"]);
    assert_eq!(v.vars["test"]["cleanup"], json!(true));
}

#[test]
fn defaults_from_environment_and_choices() {
    let spec = spec_with(
        "          mode: {type: Value, default: a, choices: [a, b]}\n          host-name: {type: Value}\n",
    );
    let dir = plugin_dir(&spec, &[]);
    let v = match run(
        dir.path(),
        &[],
        &[("IR_HOST_NAME", "h1"), ("ANSIBLE_VERBOSITY", "3")],
    ) {
        Ok(IrOutcome::Vars(v)) => v,
        other => panic!("{other:?}"),
    };
    assert_eq!(v.vars["test"]["host"]["name"], json!("h1"));
    assert_eq!(v.verbose, 3);
    let err = run(dir.path(), &[], &[("IR_MODE", "c")]).unwrap_err();
    assert_eq!(err.class, ErrorClass::InvalidChoice);
    assert_eq!(
        run(dir.path(), &["--mode", "c"], &[]).unwrap_err().class,
        ErrorClass::InvalidChoice
    );
}

#[test]
fn deprecated_options_move_to_their_replacement() {
    let spec =
        spec_with("          old: {type: Value}\n          new: {type: Value, deprecates: old}\n");
    let dir = plugin_dir(&spec, &[]);
    let v = vars(dir.path(), &["--old", "x"]);
    assert_eq!(v.vars["test"]["new"], json!("x"));
    assert_eq!(v.warnings, vec!["--old is deprecated, use --new instead"]);
    let err = run(dir.path(), &["--old", "x", "--new", "y"], &[]).unwrap_err();
    assert_eq!(err.class, ErrorClass::InvalidValue);
}

#[test]
fn generated_answers_leave_out_deprecated_defaults() {
    let spec = spec_with(
        "          old: {type: Value, default: None}\n          new: {type: Bool, deprecates: old, default: false}\n",
    );
    let dir = plugin_dir(&spec, &[]);
    run(dir.path(), &["--generate-answers-file", "a.ini"], &[]).unwrap();
    let text = std::fs::read_to_string(dir.path().join("a.ini")).unwrap();
    assert!(!text.contains("\nold = "), "{text}");
    let v = vars(dir.path(), &["--from-file", "a.ini"]);
    assert_eq!(v.vars["test"]["new"], json!(false));
}

#[test]
fn extra_vars_are_merged_last() {
    let dir = plugin_dir(
        &spec_with("          a-b: {type: Value, default: x}\n"),
        &[("more.yml", "test: {a: {c: [1]}}\n")],
    );
    let v = vars(
        dir.path(),
        &[
            "-e",
            "test.a.b=y",
            "-e",
            "@more.yml",
            "-e",
            "k=@more.yml",
            "--dry-run",
        ],
    );
    assert_eq!(v.vars["test"]["a"], json!({"b": "y", "c": [1]}));
    assert_eq!(v.vars["k"]["test"]["a"]["c"], json!([1]));
    assert!(v.dry_run);
    let err = run(dir.path(), &["-e", "oops"], &[]).unwrap_err();
    assert_eq!(err.class, ErrorClass::BadExtraVars);
}

#[test]
fn answers_file_round_trip() {
    let spec = spec_with(
        "          need: {type: Value, required: yes, help: \"Needed\\nreally\"}\n\
         \x20         flag: {type: Bool, default: true}\n\
         \x20         list: {type: Value, action: append}\n\
         \x20         home: {type: Value}\n",
    );
    let dir = plugin_dir(&spec, &[]);
    match run(dir.path(), &["--generate-answers-file", "a.ini"], &[]) {
        Ok(IrOutcome::AnswersWritten(p)) => assert_eq!(p, dir.path().join("a.ini")),
        other => panic!("{other:?}"),
    }
    let text = std::fs::read_to_string(dir.path().join("a.ini")).unwrap();
    assert!(
        text.starts_with(
            "[demo]\n# Needed\n# really\n# This argument is required.\n# need = Required argument."
        ),
        "{text}"
    );
    assert!(text.contains("\nflag = True\n"), "{text}");
    let err = run(dir.path(), &["--from-file", "a.ini"], &[]).unwrap_err();
    assert_eq!(err.class, ErrorClass::MissingRequired);

    let args = ["--need", "n", "--list", "a", "--list", "b", "--flag", "no"];
    let mut gen = args.to_vec();
    gen.extend(["--generate-answers-file", "b.ini"]);
    run(dir.path(), &gen, &[]).unwrap();
    let direct = vars(dir.path(), &args).vars;
    let from_file = vars(dir.path(), &["--from-file", "b.ini"]).vars;
    assert_eq!(direct, from_file);
    assert_eq!(direct["test"]["list"], json!(["a", "b"]));

    std::fs::write(dir.path().join("c.ini"), "[demo]\nneed = ${WHO}-$$\n").unwrap();
    let v = match run(dir.path(), &["--from-file", "c.ini"], &[("WHO", "me")]) {
        Ok(IrOutcome::Vars(v)) => v,
        other => panic!("{other:?}"),
    };
    assert_eq!(v.vars["test"]["need"], json!("me-$"));
    std::fs::write(dir.path().join("d.ini"), "[demo]\nghost = 1\n").unwrap();
    let err = run(dir.path(), &["--from-file", "d.ini"], &[]).unwrap_err();
    assert_eq!(err.class, ErrorClass::UnknownOption);
}

#[test]
fn help_lists_help_default_and_choices() {
    let dir = plugin_dir(
        &spec_with("          mode:\n            type: VarFile\n            help: |\n              The mode\n              __LISTYAMLS__\n            default: fast\n          kind: {type: Value, choices: [x, y], required: yes}\n"),
        &[("vars/mode/fast.yml", "{}\n"), ("defaults/mode/slow.yml", "{}\n")],
    );
    let text = match run(dir.path(), &["--help"], &[]) {
        Ok(IrOutcome::Help(t)) => t,
        other => panic!("{other:?}"),
    };
    assert!(
        text.starts_with("usage: vetro ir demo [-h] [options]\n\nA demo\n"),
        "{text}"
    );
    assert!(
        text.contains("\nMain:\n  --mode MODE             The mode\n"),
        "{text}"
    );
    assert!(
        text.contains("Available values: ['fast', 'slow']\n"),
        "{text}"
    );
    assert!(text.contains("Default value: 'fast'.\n"), "{text}");
    assert!(
        text.contains("  --kind KIND             This argument is required.\n"),
        "{text}"
    );
    assert!(text.contains("Allowed values: ['x', 'y'].\n"), "{text}");
    assert!(text.contains("\nCommon options:\n  --dry-run"), "{text}");
}

#[test]
fn value_conflicts_in_the_tree_are_reported() {
    let dir = plugin_dir(
        &spec_with("          tag: {type: Value}\n          tag-label: {type: Value}\n"),
        &[],
    );
    let err = run(dir.path(), &["--tag", "a", "--tag-label", "b"], &[]).unwrap_err();
    assert_eq!(err.class, ErrorClass::InvalidValue);
    assert!(
        err.message.contains("--tag and --tag-label are both set"),
        "{}",
        err.message
    );
    let v: Value = vars(dir.path(), &["--tag-label", "b"]).vars;
    assert_eq!(v["test"]["tag"]["label"], json!("b"));
}
