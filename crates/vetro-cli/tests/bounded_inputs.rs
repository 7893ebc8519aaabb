//! Inputs that must be refused, or stopped, within the memory they are
//! allowed: a `--cloud-state` that is not a regular file, a class file that
//! is a folder, symbolic links that loop under `Classes/`, a result that
//! shares its parts. Each run is held to an address-space limit (`ulimit -v`),
//! so reading what should not be read fails the test rather than passing
//! slowly.
#![cfg(target_os = "linux")]

use assert_cmd::Command;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::time::{Duration, Instant};

const WEBSERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/murano/webserver"
);
const ENVIRONMENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/murano/environment.json"
);

struct Out {
    code: Option<i32>,
    /// stdout and stderr.
    text: String,
    took: Duration,
}

/// `vetro ARGS` in `dir` with at most `mib` MiB of address space.
fn vetro_within(mib: u64, args: &[&str], dir: &Path) -> Out {
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", mib << 10))
        .arg(assert_cmd::cargo::cargo_bin("vetro"))
        .args(args)
        .current_dir(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    Out {
        code: out.status.code(),
        text: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        took: started.elapsed(),
    }
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_cloud_state_that_is_not_a_regular_file_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("state.fifo");
    mkfifo(&fifo);
    let folder = dir.path().join("state.d");
    std::fs::create_dir(&folder).unwrap();
    let targets = [
        fifo.to_str().unwrap(),
        folder.to_str().unwrap(),
        "/dev/zero",
        "/dev/full",
        "/dev/null",
    ];
    for target in targets {
        for format in ["text", "json"] {
            let args = [
                "run",
                WEBSERVER,
                "--model",
                ENVIRONMENT,
                "--cloud-state",
                target,
                "--format",
                format,
            ];
            // Reading /dev/zero up to the input limit would not fit.
            let out = vetro_within(200, &args, dir.path());
            assert_eq!(out.code, Some(2), "{target}: {}", out.text);
            assert!(
                out.text.contains("--cloud-state takes a regular file"),
                "{target}: {}",
                out.text
            );
            assert!(
                out.took < Duration::from_secs(20),
                "{target}: {:?}",
                out.took
            );
        }
    }
    // Nothing was written in their place.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

/// A package whose manifest maps `demo.Main` to `Classes/Main.yaml`.
fn package(dir: &Path) {
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.pkg\nVersion: 1.0.0\nClasses:\n  demo.Main: Main.yaml\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("model.json"),
        r#"{"?": {"id": "m1", "type": "demo.Main"}}"#,
    )
    .unwrap();
}

#[test]
fn a_class_file_that_is_a_folder_is_reported_not_walked() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    let folder = dir.path().join("Classes/Main.yaml");
    std::fs::create_dir(&folder).unwrap();
    // What the folder holds is not read: a sparse file of 1 TiB would be
    // refused as too large, a second class would be loaded.
    std::fs::File::create(folder.join("Huge.yaml"))
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    std::fs::write(
        folder.join("Other.yaml"),
        "Name: demo.Other\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n",
    )
    .unwrap();
    let commands: [&[&str]; 3] = [
        &["check", "."],
        &["test", "."],
        &["run", ".", "--model", "model.json"],
    ];
    for args in commands {
        for format in ["text", "json"] {
            let args = [args, &["--format", format]].concat();
            let out = vetro_within(200, &args, dir.path());
            assert!(matches!(out.code, Some(1 | 2)), "{args:?}: {}", out.text);
            assert!(
                out.text
                    .contains("Classes/Main.yaml, which is a folder, not a class file"),
                "{args:?}: {}",
                out.text
            );
            assert!(!out.text.contains("Huge.yaml"), "{args:?}: {}", out.text);
            assert!(
                out.took < Duration::from_secs(20),
                "{args:?}: {:?}",
                out.took
            );
        }
    }
}

#[test]
fn symbolic_links_that_loop_under_classes_are_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    std::fs::write(
        dir.path().join("Classes/Main.yaml"),
        "Name: demo.Main\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n",
    )
    .unwrap();
    // Two links to their own folder: 2^40 paths before the kernel's limit
    // on links in one path, if each were followed.
    for link in ["a", "b"] {
        std::os::unix::fs::symlink(".", dir.path().join("Classes").join(link)).unwrap();
    }
    let out = vetro_within(200, &["check", "."], dir.path());
    assert_eq!(out.code, Some(0), "{}", out.text);
    assert!(out.took < Duration::from_secs(20), "{:?}", out.took);
}

#[test]
fn a_result_sharing_its_parts_stops_at_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    package(dir.path());
    // A list doubled 60 times: 60 lists in memory, 2^60 items written out.
    std::fs::write(
        dir.path().join("Classes/Main.yaml"),
        r#"Name: demo.Main
Methods:
  deploy:
    Body:
      - $l: []
      - For: i
        In: range(60)
        Do:
          - $l: [$l, $l]
      - Return: $l
"#,
    )
    .unwrap();
    for (memory, room) in [("64", 512), ("1", 256)] {
        for format in ["text", "json"] {
            let what = format!("--max-memory {memory} --format {format}");
            stopped_by_memory_limit(dir.path(), memory, room, &["--format", format], &what);
        }
    }
}

/// The text of a value sharing its parts, written by the executor rather than
/// by YAQL's `str()`: an exception's message and names, a contract's error, a
/// log line, a stack trace's prefix, `bind()` fields. Each stops at the
/// session's memory limit with its error (each was written out without a
/// bound, and aborted when the allocation failed).
#[test]
fn text_of_a_shared_value_stops_at_the_memory_limit_wherever_it_is_written() {
    const SHARED: &str = "      - $l: [1]\n      - For: i\n        In: range(60)\n        Do:\n          - $l: [$l, $l]\n";
    let cases = [
        ("a thrown message", "", "      - Throw: Err\n        Message: $l\n"),
        ("thrown names", "", "      - Throw: $l\n"),
        (
            "an argument contract",
            "  f:\n    Arguments:\n      - a:\n          Contract: $.int()\n    Body:\n      - Return: $a\n",
            "      - $.f($l)\n",
        ),
        (
            "a property contract",
            "",
            "      - $.p: $l\n",
        ),
        ("a log line", "", "      - $log: logger(demo)\n      - $log.info($l)\n"),
        (
            "a stack trace",
            "",
            "      - Try:\n          - Throw: Err\n        Catch:\n          - As: e\n            Do:\n              - Return: $e.stackTrace.toString($l)\n",
        ),
        (
            "bind() fields",
            "",
            "      - Return: bind(concat('$q', '{a}' * 100000), {a => range(5000).toList()})\n",
        ),
    ];
    for (what, methods, body) in cases {
        let dir = tempfile::tempdir().unwrap();
        package(dir.path());
        let class = format!(
            "Name: demo.Main\nProperties:\n  p:\n    Contract: $.string()\n    Usage: InOut\nMethods:\n  deploy:\n    Body:\n{SHARED}{body}{methods}"
        );
        std::fs::write(dir.path().join("Classes/Main.yaml"), class).unwrap();
        stopped_by_memory_limit(dir.path(), "64", 512, &[], what);
    }
}

/// `vetro run . --model model.json` in `dir` under `--max-memory memory` and
/// `room` MiB of address space ends with the session's memory-limit error,
/// well before its 20 s timeout.
fn stopped_by_memory_limit(dir: &Path, memory: &str, room: u64, extra: &[&str], what: &str) {
    let mut args = vec![
        "run",
        ".",
        "--model",
        "model.json",
        "--max-memory",
        memory,
        "--timeout",
        "20",
    ];
    args.extend_from_slice(extra);
    let out = vetro_within(room, &args, dir);
    assert_eq!(out.code, Some(1), "{what}: {}", out.text);
    assert!(
        out.text.contains("MemoryLimitExceeded"),
        "{what}: {}",
        out.text
    );
    assert!(out.took < Duration::from_secs(20), "{what}: {:?}", out.took);
}

/// `tosca types --format json` lists every type's ancestors, so its text
/// grows with the square of a chain's length; it is written as it is made
/// (a chain of 5,000 types took 1.6 GB and 9 s building the text first).
#[test]
fn a_long_type_chain_is_written_as_json_in_little_memory() {
    let n = 2_000;
    let dir = type_chain(n);
    let args = ["tosca", "types", "chain.yaml", "--format", "json"];
    let out = vetro_within(160, &args, dir.path());
    assert_eq!(
        out.code,
        Some(0),
        "{}",
        &out.text[..out.text.len().min(2000)]
    );
    // stdout's catalog, then stderr's diagnostics (`[]`).
    let json: serde_json::Value = serde_json::Deserializer::from_str(&out.text)
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    let last = json["node_types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == format!("t{}", n - 1))
        .unwrap();
    assert_eq!(last["ancestors"].as_array().unwrap().len(), n);
    assert_eq!(last["ancestors"][0], format!("t{}", n - 2));
}

/// The text tree of `tosca types` is printed without recursion: a chain of
/// 50,000 types overflowed the stack.
#[test]
fn a_very_long_type_chain_prints_as_a_tree() {
    let n = 50_000;
    let dir = type_chain(n);
    // The tree indents each level, so its text is gigabytes: count its lines.
    let out = Command::new("sh")
        .arg("-c")
        .arg("\"$0\" tosca types chain.yaml | wc -l")
        .arg(assert_cmd::cargo::cargo_bin("vetro"))
        .current_dir(dir.path())
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let lines: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!(
        lines > n,
        "{lines} lines: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("overflow"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A folder with `chain.yaml`: node types `t0` to `t{n-1}`, each derived
/// from the one before.
fn type_chain(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "tosca_definitions_version: tosca_simple_yaml_1_1\nnode_types:\n  t0:\n    derived_from: tosca.nodes.Root\n",
    );
    for i in 1..n {
        text.push_str(&format!("  t{i}:\n    derived_from: t{}\n", i - 1));
    }
    std::fs::write(dir.path().join("chain.yaml"), text).unwrap();
    dir
}

#[test]
fn thousands_of_catalog_packages_are_indexed_in_bounded_time_and_memory() {
    let shelf = tempfile::tempdir().unwrap();
    // 3,000 packages, a Require chain through all of them, and a pair that
    // require each other.
    for i in 0..3000 {
        let dir = shelf.path().join(format!("p{i}"));
        std::fs::create_dir_all(dir.join("Classes")).unwrap();
        std::fs::write(dir.join("Classes/c.yaml"), format!("Name: org.p{i}.C\n")).unwrap();
        let req = if i > 0 {
            format!("Require:\n  org.p{}:\n", i - 1)
        } else {
            String::new()
        };
        std::fs::write(
            dir.join("manifest.yaml"),
            format!("FullName: org.p{i}\n{req}Classes:\n  org.p{i}.C: c.yaml\n"),
        )
        .unwrap();
    }
    for (me, other) in [("a", "b"), ("b", "a")] {
        let dir = shelf.path().join(format!("cycle-{me}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("manifest.yaml"),
            format!("FullName: org.cycle.{me}\nRequire:\n  org.cycle.{other}:\n"),
        )
        .unwrap();
    }
    let app = tempfile::tempdir().unwrap();
    package(app.path());
    let main = "Name: demo.Main\nMethods:\n  deploy:\n    Body:\n      - Return: 1\n";
    std::fs::write(app.path().join("Classes/Main.yaml"), main).unwrap();
    let manifest = app.path().join("manifest.yaml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let shelf_arg = shelf.path().to_str().unwrap();
    for (require, want) in [
        ("org.p2999", None),
        ("org.nothere", Some("org.nothere")),
        ("org.cycle.a", Some("cycl")),
    ] {
        std::fs::write(&manifest, format!("{text}Require:\n  {require}:\n")).unwrap();
        let out = vetro_within(400, &["check", ".", "--packages", shelf_arg], app.path());
        assert!(
            out.took < Duration::from_secs(30),
            "{require}: {:?}",
            out.took
        );
        match want {
            None => assert_eq!(out.code, Some(0), "{require}: {}", out.text),
            Some(word) => {
                assert_eq!(out.code, Some(1), "{require}: {}", out.text);
                assert!(out.text.contains(word), "{require}: {}", out.text);
                assert!(!out.text.contains("panicked"), "{}", out.text);
            }
        }
    }
}
