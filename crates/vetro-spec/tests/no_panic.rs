//! Parsers never panic: arbitrary INI text, arbitrary spec text and arbitrary
//! command lines give a value or an error.

use proptest::prelude::*;
use std::collections::HashMap;
use std::fs;
use vetro_diag::SourceMap;
use vetro_spec::ini::{convert_ini_value, Ini};
use vetro_spec::{Engine, Request};

const SPEC: &str = r#"
subparsers:
  run:
    groups:
      - title: Main
        options:
          name-a: {type: Value, required: yes}
          count: {type: int, default: 1}
          many: {type: Value, nargs: '+'}
          maybe: {type: Value, nargs: '?', const: c}
          kind: {type: Value, choices: [x, y]}
          nodes: {type: Topology}
          pairs: {type: DictValue}
          files: {type: ListOfYamls}
          one: {type: YamlFile}
          loud: {action: count, short: l}
          flag: {action: store_true, short: f}
          extra-vars: {action: append, short: e}
"#;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn ini_text_never_panics(text in "[\\[\\]a-z=:#; \\n'\",TrueFalse]{0,80}") {
        let _ = Ini::parse(&text, true);
        let _ = convert_ini_value(&text);
    }

    #[test]
    fn command_lines_never_panic(tokens in proptest::collection::vec(
        prop_oneof![
            Just("run".to_string()),
            Just("--name-a".to_string()),
            Just("--name".to_string()),
            Just("--count=x".to_string()),
            Just("--many".to_string()),
            Just("--maybe".to_string()),
            Just("--kind=z".to_string()),
            Just("--nodes=a:1".to_string()),
            Just("--pairs=a=1;".to_string()),
            Just("--files=a,/".to_string()),
            Just("-lll".to_string()),
            Just("-f".to_string()),
            Just("-e".to_string()),
            Just("--help".to_string()),
            Just("-5".to_string()),
            Just("--".to_string()),
            Just("-".to_string()),
            "[-a-z=:,;@{}!. ]{0,12}",
        ],
        0..8,
    )) {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("settings");
        fs::create_dir_all(root.join("cmd")).expect("mkdir");
        fs::write(root.join("cmd/cmd.spec"), SPEC).expect("write spec");
        let mut args = vec!["cmd".to_string()];
        args.extend(tokens);
        let req = Request {
            settings_root: root,
            args,
            cwd: dir.path().to_path_buf(),
            env: HashMap::new(),
        };
        let _ = Engine::default().run(&req, &mut SourceMap::new());
    }

    #[test]
    fn spec_text_never_panics(text in "[a-z_:\\[\\]{}\\-' \\n]{0,120}") {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("settings");
        fs::create_dir_all(root.join("cmd")).expect("mkdir");
        fs::write(root.join("cmd/cmd.spec"), &text).expect("write spec");
        let req = Request {
            settings_root: root,
            args: vec!["cmd".into(), "run".into(), "--help".into()],
            cwd: dir.path().to_path_buf(),
            env: HashMap::new(),
        };
        let _ = Engine::default().run(&req, &mut SourceMap::new());
    }
}
