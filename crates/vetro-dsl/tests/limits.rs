//! Session limits: too many steps and too much time each stop a run with
//! their own error, which MuranoPL `Try` cannot catch. Values that nest very
//! deep or share their parts cannot crash or outrun the limits either.

use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;
use vetro_dsl::cloud::SimulatedCloud;
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::runtime::limits::Limits;

const LOOPER: &str = r#"
Name: demo.Looper
Properties:
  caught: {Usage: Out, Contract: $}
Methods:
  spin:
    Body:
      - Try:
          - While: 1 = 1
            Do:
              - $x: 1
        Catch:
          - Do:
              - $.caught: true
  nestFew:
    Body:
      - $l: [1]
      - For: i
        In: range(3)
        Do:
          - $l: [$l]
      - $.caught: $l
  nest:
    Body:
      - $l: [1]
      - For: i
        In: range(100)
        Do:
          - For: j
            In: range(1000)
            Do:
              - $l: [$l]
      - $.caught: $l
  nestReturn:
    Body:
      - $l: [1]
      - For: i
        In: range(200)
        Do:
          - $l: [$l, $l]
      - Return: $l
  double:
    Body:
      - $l: [1]
      - For: i
        In: range(60)
        Do:
          - $l: [$l, $l]
      - $.caught: $l
  count:
    Arguments:
      - n: {Contract: $.int()}
    Body:
      - $i: 0
      - While: $i < $n
        Do:
          - $i: $i + 1
      - Return: $i
"#;

fn package(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vetro-limits-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::write(dir.join("Classes/Looper.yaml"), LOOPER).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.limits\nVersion: 1.0.0\nClasses:\n  demo.Looper: Looper.yaml\n",
    )
    .unwrap();
    dir
}

fn run(limits: Limits, method: &str) -> Result<serde_json::Value, vetro_dsl::runtime::types::Exc> {
    let mut lib = Library::load(&[package(&format!("{:?}", limits.max_steps))]);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    lib.limits = limits;
    let model = json!({"?": {"id": "l1", "type": "demo.Looper"}});
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    host::run(&lib, &model, &Target::Root, method, h)
        .unwrap()
        .result
}

/// A whole run of `method` with `args`: the call, then the model written out.
fn run_whole(
    limits: Limits,
    method: &str,
) -> Result<host::RunOutcome, vetro_dsl::runtime::types::Exc> {
    let mut lib = Library::load(&[package(method)]);
    lib.limits = limits;
    let model = json!({"?": {"id": "l3", "type": "demo.Looper"}});
    let h = lib.host(Box::new(SimulatedCloud::new()), None);
    host::run(&lib, &model, &Target::Root, method, h)
}

#[test]
fn a_value_nested_100_000_deep_is_refused_when_written_not_a_crash() {
    let Err(e) = run_whole(Limits::default(), "nest") else {
        panic!("a model nested 100,000 deep was written")
    };
    assert!(
        e.message().contains("nests deeper than 100 levels"),
        "{}",
        e.message()
    );
    // Shallow enough, the same value is written.
    let Ok(out) = run_whole(Limits::default(), "nestFew") else {
        panic!("a model nested four deep was not written")
    };
    assert_eq!(out.model["Objects"]["caught"], json!([[[[1]]]]));
}

#[test]
fn a_result_nested_deeper_than_a_model_may_be_is_refused() {
    let Ok(out) = run_whole(Limits::default(), "nestReturn") else {
        panic!("the model was not written")
    };
    let Err(e) = out.result else {
        panic!("a result nested 200 deep was written")
    };
    assert!(
        e.message().contains("result nests deeper than 100 levels"),
        "{}",
        e.message()
    );
}

#[test]
fn a_value_sharing_its_parts_cannot_outrun_the_time_limit_when_written() {
    let limits = Limits {
        max_time: Some(Duration::from_millis(300)),
        ..Limits::default()
    };
    let started = std::time::Instant::now();
    let Err(e) = run_whole(limits, "double") else {
        panic!("a value doubled 60 times was written")
    };
    assert!(
        e.names().join(",").contains("TimeLimitExceeded"),
        "{}",
        e.message()
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

fn error_class(r: Result<serde_json::Value, vetro_dsl::runtime::types::Exc>) -> String {
    match r {
        Ok(v) => panic!("expected a limit error, got {v}"),
        Err(e) => e.names().join(","),
    }
}

#[test]
fn step_limit_stops_an_endless_loop_and_cannot_be_caught() {
    let limits = Limits {
        max_steps: Some(10_000),
        max_time: None,
        max_memory: None,
        cancel: None,
    };
    assert!(error_class(run(limits, "spin")).contains("StepLimitExceeded"));
}

#[test]
fn time_limit_stops_an_endless_loop() {
    let limits = Limits {
        max_steps: None,
        max_time: Some(Duration::from_millis(200)),
        max_memory: None,
        cancel: None,
    };
    assert!(error_class(run(limits, "spin")).contains("TimeLimitExceeded"));
}

#[test]
fn work_under_the_limits_runs() {
    let mut lib = Library::load(&[package("under")]);
    lib.limits = Limits {
        max_steps: Some(10_000),
        max_time: None,
        max_memory: None,
        cancel: None,
    };
    let rt = lib.session();
    let root = rt
        .load_model(&json!({"?": {"id": "l2", "type": "demo.Looper"}}))
        .unwrap()
        .unwrap();
    let v = rt.call_method(
        &root.value(),
        "count",
        vec![vetro_yaql::Value::Int(100)],
        Vec::new(),
        vetro_dsl::runtime::call::CallKind::External,
    );
    assert_eq!(v.ok(), Some(vetro_yaql::Value::Int(100)));
}

#[test]
fn a_cancelled_session_stops_and_cannot_be_caught() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut lib = Library::load(&[package("cancel")]);
    // Without the cancellation the time limit would end the loop.
    lib.limits.max_time = Some(Duration::from_secs(20));
    let rt = lib.session();
    let flag = Arc::new(AtomicBool::new(false));
    rt.limits.set_cancel_flag(flag.clone());
    let root = rt
        .load_model(&json!({"?": {"id": "l3", "type": "demo.Looper"}}))
        .unwrap()
        .unwrap();
    // Another thread cancels while `spin` (which catches everything) loops.
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        flag.store(true, Ordering::Relaxed);
    });
    let r = rt.call_method(
        &root.value(),
        "spin",
        Vec::new(),
        Vec::new(),
        vetro_dsl::runtime::call::CallKind::External,
    );
    canceller.join().unwrap();
    let e = r.expect_err("the session is cancelled");
    assert!(
        vetro_dsl::runtime::limits::is_cancelled(&e),
        "{:?}",
        e.names()
    );
}
