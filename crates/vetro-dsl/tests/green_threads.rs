//! `Parallel` and `pselect` run their branches as cooperative green threads:
//! `sleep()` lets the other branches run, and calls of one method on one
//! object are serialized unless the `Synchronize` meta says otherwise.

use serde_json::json;
use vetro_dsl::host::Library;
use vetro_dsl::runtime::call::CallKind;
use vetro_yaql::Value;

const CLASS: &str = r#"
Namespaces:
  m: io.murano.metadata.engine
Name: demo.Green
Properties:
  log: {Usage: InOut, Contract: [$.string()], Default: []}
Methods:
  note:
    Arguments:
      - what: {Contract: $.string()}
    Body:
      - $.log: $.log + [$what]
  step:
    Arguments:
      - name: {Contract: $.string()}
    Body:
      - $.note(format('{0}1', $name))
      - sleep(0)
      - $.note(format('{0}2', $name))
  free:
    Meta:
      - m:Synchronize:
          onThis: false
    Arguments:
      - name: {Contract: $.string()}
    Body:
      - $.note(format('{0}1', $name))
      - sleep(0)
      - $.note(format('{0}2', $name))
  branches:
    Body:
      - Parallel:
          - $.step(a)
          - $.step(b)
      - Return: $.log
  serialized:
    Body:
      - list(x, y).pselect($this.step($))
      - Return: $.log
  concurrent:
    Body:
      - list(x, y).pselect($this.free($))
      - Return: $.log
"#;

/// The package, in a directory removed when the value is dropped.
fn package() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::write(dir.join("Classes/Green.yaml"), CLASS).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.green\nVersion: 1.0.0\nClasses:\n  demo.Green: Green.yaml\n",
    )
    .unwrap();
    tmp
}

fn run(lib: &Library, method: &str) -> Vec<String> {
    let rt = lib.session();
    let root = rt
        .load_model(&json!({"?": {"id": "g1", "type": "demo.Green"}}))
        .unwrap()
        .unwrap();
    let v = rt
        .call_method(
            &root.value(),
            method,
            Vec::new(),
            Vec::new(),
            CallKind::External,
        )
        .unwrap_or_else(|e| panic!("{method}: {}", e.message()));
    match &v {
        Value::List(l) => l.iter().map(Value::py_str).collect(),
        other => panic!("{method}: {}", other.py_str()),
    }
}

#[test]
fn green_threads_interleave_and_locks_serialize() {
    let pkg = package();
    let lib = Library::load(&[pkg.path().to_path_buf()]);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    // `step` runs on the same object from two branches: one method, one
    // receiver, so the second waits for the first.
    assert_eq!(run(&lib, "branches"), ["a1", "a2", "b1", "b2"]);
    assert_eq!(run(&lib, "serialized"), ["x1", "x2", "y1", "y2"]);
    // `free` takes no lock (`onThis: false`): the threads interleave at `sleep`.
    assert_eq!(run(&lib, "concurrent"), ["x1", "y1", "x2", "y2"]);
}
