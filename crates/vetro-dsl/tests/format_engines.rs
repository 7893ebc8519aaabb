//! A package's format picks the YAQL engine its code runs in, as in Murano:
//! formats 1.0 and 1.1 get the legacy layer and iterable dicts, 1.2 and
//! later the standard library alone. The same class body is run in a
//! package of each format.

use serde_json::{json, Value};
use vetro_diag::SourceMap;
use vetro_dsl::cloud::SimulatedCloud;
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::package::{Package, PackageFiles};

/// Run `body` as the `run` method of a class in a package of `format`:
/// its result as JSON, or the names of the exception it raised.
fn run(format: &str, body: &str) -> Result<Value, Vec<String>> {
    let manifest = format!(
        "Format: MuranoPL/{format}\nFullName: demo.formats\nVersion: 1.0.0\nClasses:\n  demo.Main: Main.yaml\n"
    );
    let class = format!("Name: demo.Main\nMethods:\n  run:\n    Body:\n      - Return: {body}\n");
    let mut files = PackageFiles::new();
    files.insert("manifest.yaml".into(), manifest.into_bytes());
    files.insert("Classes/Main.yaml".into(), class.into_bytes());
    let mut sources = SourceMap::new();
    let pkg = Package::load_files("formats", files, &mut sources);
    let lib = Library::from_packages(vec![pkg], sources);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    let model = json!({"?": {"id": "e1", "type": "demo.Main"}});
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    host::run(&lib, &model, &Target::Root, "run", h)
        .expect("the model loads")
        .result
        .map_err(|e| e.names())
}

fn fails_with(r: Result<Value, Vec<String>>, name: &str) {
    match r {
        Err(names) => assert!(names.iter().any(|n| n.ends_with(name)), "{names:?}"),
        Ok(v) => panic!("expected {name}, got {v}"),
    }
}

#[test]
fn dicts_iterate_over_their_keys_only_in_legacy_formats() {
    let body = "!yaql \"{a => 1, b => 2}.select($)\"";
    assert_eq!(run("1.0", body), Ok(json!(["a", "b"])));
    assert_eq!(run("1.1", body), Ok(json!(["a", "b"])));
    fails_with(run("1.2", body), "NoMatchingMethodException");
    fails_with(run("1.4", body), "NoMatchingMethodException");
}

#[test]
fn range_of_one_argument_counts_from_zero_in_later_formats() {
    assert_eq!(run("1.4", "range(3)"), Ok(json!([0, 1, 2])));
    // The legacy layer's range(start) counts up without end.
    assert_eq!(run("1.0", "range(3).take(2)"), Ok(json!([3, 4])));
}

#[test]
fn a_missing_dict_key_is_null_only_in_legacy_formats() {
    assert_eq!(run("1.0", "!yaql \"{a => 1}.b\""), Ok(Value::Null));
    fails_with(run("1.3", "!yaql \"{a => 1}.b\""), "KeyError");
}

#[test]
fn string_functions_in_function_form_are_legacy_only() {
    assert_eq!(run("1.0", "!yaql \"toUpper('abc')\""), Ok(json!("ABC")));
    fails_with(
        run("1.4", "!yaql \"toUpper('abc')\""),
        "NoFunctionRegisteredException",
    );
    assert_eq!(run("1.4", "!yaql \"'abc'.toUpper()\""), Ok(json!("ABC")));
}
