//! The embedding API: packages from memory and zip archives, a library shared
//! between threads, the embedder's event sink, cancelling a running session.

use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vetro_diag::SourceMap;
use vetro_dsl::cloud::{Event, EventKind, SimulatedCloud};
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::package::{ArchiveLimits, Package, PackageFiles};
use vetro_dsl::runtime::limits::{is_cancelled, CancelFlag, Limits};

const MANIFEST: &str =
    "Format: MuranoPL/1.4\nFullName: demo.embed\nVersion: 1.0.0\nClasses:\n  demo.Main: Main.yaml\n";

const MAIN: &str = r#"
Name: demo.Main
Methods:
  deploy:
    Body:
      - Return: resources.string('greeting.txt')
      - $x: 1
  spin:
    Body:
      - While: 1 = 1
        Do:
          - $x: 1
"#;

fn files() -> PackageFiles {
    let mut files = PackageFiles::new();
    files.insert("manifest.yaml".into(), MANIFEST.as_bytes().to_vec());
    files.insert(
        "Classes/Main.yaml".into(),
        MAIN.replace(
            "resources.string('greeting.txt')",
            "new('io.murano.system.Resources').string('greeting.txt')",
        )
        .into_bytes(),
    );
    files.insert("Resources/greeting.txt".into(), b"hello".to_vec());
    files
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    vetro_dsl::package::write_zip(entries.iter().copied()).unwrap()
}

fn run(lib: &Library, method: &str) -> Result<serde_json::Value, vetro_dsl::runtime::types::Exc> {
    let model = json!({"?": {"id": "e1", "type": "demo.Main"}});
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    host::run(lib, &model, &Target::Root, method, h)
        .unwrap()
        .result
}

#[test]
fn a_library_is_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Library>();
    let mut sources = SourceMap::new();
    let pkg = Package::load_files("embed", files(), &mut sources);
    let lib = Arc::new(Library::from_packages(vec![pkg], sources));
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let lib = lib.clone();
            std::thread::spawn(move || run(&lib, "deploy").unwrap())
        })
        .collect();
    for w in workers {
        assert_eq!(w.join().unwrap(), json!("hello"));
    }
}

#[test]
fn packages_load_from_zip_archives() {
    let files = files();
    let entries: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_slice()))
        .collect();
    let mut sources = SourceMap::new();
    let pkg = Package::load_zip(
        "embed.zip",
        &zip_of(&entries),
        &ArchiveLimits::default(),
        &mut sources,
    );
    assert!(pkg.problems.is_empty(), "{:?}", pkg.problems);
    let lib = Library::from_packages(vec![pkg], sources);
    assert_eq!(run(&lib, "deploy").unwrap(), json!("hello"));
}

#[test]
fn bad_archives_are_refused() {
    let limits = ArchiveLimits {
        max_unpacked_bytes: 1 << 20,
        max_entries: 100,
        ..ArchiveLimits::default()
    };
    let big = vec![0u8; 2 << 20];
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"not a zip".to_vec(), "not a valid zip"),
        (
            zip_of(&[
                ("manifest.yaml", MANIFEST.as_bytes()),
                ("Resources/big", &big),
            ]),
            "more than",
        ),
        (zip_of(&[("../escape.yaml", b"x")]), "outside"),
    ];
    for (bytes, expected) in cases {
        let mut sources = SourceMap::new();
        let pkg = Package::load_zip("bad.zip", &bytes, &limits, &mut sources);
        let messages: Vec<_> = pkg.problems.iter().map(|d| d.message.clone()).collect();
        assert!(
            messages.iter().any(|m| m.contains(expected)),
            "{expected}: {messages:?}"
        );
    }
}

#[test]
fn the_embedder_receives_events_and_can_cancel() {
    let mut sources = SourceMap::new();
    let pkg = Package::load_files("embed", files(), &mut sources);
    let mut lib = Library::from_packages(vec![pkg], sources);
    let cancel = CancelFlag::new();
    lib.limits = Limits {
        cancel: Some(cancel.clone()),
        ..Limits::default()
    };
    let lib = Arc::new(lib);
    let seen = Arc::new(Mutex::new(Vec::<EventKind>::new()));
    let worker = {
        let (lib, seen) = (lib.clone(), seen.clone());
        std::thread::spawn(move || {
            let sink = Box::new(move |e: &Event| seen.lock().unwrap().push(e.kind));
            let h = lib.host(Box::new(SimulatedCloud::new()), Some(sink));
            let model = json!({"?": {"id": "e1", "type": "demo.Main"}});
            let r = host::run(&lib, &model, &Target::Root, "spin", h)
                .unwrap()
                .result;
            r.map_err(|e| (is_cancelled(&e), e.message()))
        })
    };
    std::thread::sleep(Duration::from_millis(100));
    cancel.cancel();
    let r = worker.join().unwrap();
    assert!(matches!(r, Err((true, _))), "{r:?}");
}

/// A session leaves nothing behind once it ends: an object's value and a
/// class's type value point back at them, so they are cached weakly. With a
/// strong cache every run leaked its objects and classes (found by fuzzing
/// under LeakSanitizer), and a service runs many sessions.
#[test]
fn a_session_frees_its_objects_and_classes() {
    const CYCLES: &str = r#"
Name: demo.Main
Methods:
  deploy:
    Body:
      - $me: $this
      - $one: $.helper()
      - Return: $me = $this and $one = 1
  helper:
    Usage: Static
    Body:
      - Return: 1
"#;
    let mut files = PackageFiles::new();
    files.insert("manifest.yaml".into(), MANIFEST.as_bytes().to_vec());
    files.insert("Classes/Main.yaml".into(), CYCLES.as_bytes().to_vec());
    let mut sources = SourceMap::new();
    let package = Package::load_files("cycles.zip", files, &mut sources);
    let lib = Library::from_packages(vec![package], sources);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    let def = lib.source.defs["demo.Main"].0.clone();
    let held = Arc::strong_count(&def);
    for _ in 0..3 {
        assert_eq!(run(&lib, "deploy").unwrap(), json!(true));
        assert_eq!(
            Arc::strong_count(&def),
            held,
            "a session kept its class alive"
        );
    }
}
