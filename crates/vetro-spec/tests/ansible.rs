//! The real playbook path: the example tree under `examples/local` run with
//! `ansible-playbook` against localhost (connection local). Skipped, with the
//! reason printed, when `ansible-playbook` is not installed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use vetro_diag::SourceMap;
use vetro_spec::playbook::{find_playbook, PlaybookRun};
use vetro_spec::{Engine, Outcome, Request};

fn ansible_playbook() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("VETRO_ANSIBLE_PLAYBOOK") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("ansible-playbook"))
        .find(|p| p.is_file())
}

#[test]
fn example_runs_the_real_playbook() {
    let Some(program) = ansible_playbook() else {
        println!("skipped: ansible-playbook not found (install with `python3 -m pip install ansible-core`)");
        return;
    };
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/local");
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out_file = out_dir.path().join("greeting.txt");
    let req = Request {
        settings_root: example.join("settings"),
        args: vec![
            "hello".into(),
            "--audience=team".into(),
            "world".into(),
            format!("--out-file={}", out_file.display()),
            "--greeting-style=loud.yml".into(),
        ],
        cwd: example.clone(),
        env: HashMap::new(),
    };
    let resolved = match Engine::default().run(&req, &mut SourceMap::new()) {
        Ok(Outcome::Settings(r)) => r,
        other => panic!("expected settings, got {other:?}"),
    };
    assert_eq!(resolved.settings["hello"]["message"], "Hello, team!!!");
    let settings_file = out_dir.path().join("settings.yml");
    let yaml = vetro_yaml::to_yaml_string(&vetro_yaml::from_json(
        &resolved.settings,
        Default::default(),
    ));
    std::fs::write(&settings_file, yaml).expect("write settings");
    let playbook = find_playbook(&req.settings_root, &example, "hello").expect("playbook");
    let program = program.display().to_string();
    let run = PlaybookRun::plan(&resolved, program, playbook, settings_file, &example);
    let code = run.run().expect("ansible-playbook starts");
    assert_eq!(code, 0, "ansible-playbook failed: {:?}", run.argv());
    let written = std::fs::read_to_string(&out_file).expect("playbook wrote the file");
    assert_eq!(written.trim_end(), "Hello, team!!!");
}
