//! `vetro ir` runs a plugin's real `main.yml` with ansible-playbook against
//! localhost: the example plugin in `examples/infrared/hello`. Skipped, with
//! the reason printed, when VETRO_ANSIBLE_PLAYBOOK is not set (CI sets it).

use assert_cmd::Command;
use std::path::Path;

#[test]
fn hello_plugin_runs_its_playbook() {
    let Ok(program) = std::env::var("VETRO_ANSIBLE_PLAYBOOK") else {
        println!(
            "skipped: VETRO_ANSIBLE_PLAYBOOK is not set (it names the ansible-playbook to run)"
        );
        return;
    };
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/infrared/hello");
    let work = tempfile::tempdir().unwrap();
    let out_file = work.path().join("greeting.txt");
    let vars_file = work.path().join("vars.yml");
    let run = Command::cargo_bin("vetro")
        .unwrap()
        .env("VETRO_ANSIBLE_PLAYBOOK", &program)
        .env("ANSIBLE_LOCALHOST_WARNING", "False")
        .current_dir(work.path())
        .arg("ir")
        .arg(&plugin)
        .arg("--out-file")
        .arg(&out_file)
        .args([
            "--greeting-style",
            "cheerful",
            "--loud",
            "yes",
            "--greeting-repeat",
            "2",
            "--out-labels",
            "team.name=infra",
            "-o",
            "vars.yml",
            "-e",
            "other.greeting.name=vetro",
        ])
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "ansible-playbook failed:\n{log}");
    let written = std::fs::read_to_string(&out_file).expect("the playbook wrote the file");
    assert_eq!(
        written,
        "HI THERE, VETRO!\nHI THERE, VETRO!\nteam: {'name': 'infra'}\n"
    );
    let vars = std::fs::read_to_string(&vars_file).expect("-o wrote the vars");
    assert!(vars.contains("    name: vetro\n"), "{vars}");
}
