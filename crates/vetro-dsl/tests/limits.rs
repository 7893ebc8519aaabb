//! Session limits: too many steps and too much time each stop a run with
//! their own error, which MuranoPL `Try` cannot catch. Values that nest very
//! deep or share their parts cannot crash or outrun the limits either.

use serde_json::json;
use std::time::Duration;
use vetro_dsl::cloud::SimulatedCloud;
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::runtime::limits::Limits;

const LOOPER: &str = r#"
Namespaces:
  =: demo
  sys: io.murano.system
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
  resultDouble:
    Body:
      - $l: [1]
      - For: i
        In: range(60)
        Do:
          - $l: [$l, $l]
      - Return: $l
  newDouble:
    Body:
      - $d: {x: 1}
      - For: i
        In: range(60)
        Do:
          - $d: {a: $d, b: $d}
      - $model: {'?': {type: demo.Looper}, caught: $d}
      - $o: new($model)
      - $c: $o.caught
      - For: i
        In: range(60)
        Do:
          - $c: $c.b
      - Return: $c.x
  newDeep:
    Body:
      - $d: [1]
      - For: i
        In: range(100)
        Do:
          - For: j
            In: range(1000)
            Do:
              - $d: [$d]
      - $model: {'?': {type: demo.Looper}, caught: $d}
      - $o: new($model)
      - $c: $o.caught
      - For: i
        In: range(100)
        Do:
          - For: j
            In: range(1000)
            Do:
              - $c: $c[0]
      - Return: $c[0]
  nestedLists:
    Arguments:
      - v: {Contract: NESTED_CONTRACT}
    Body:
      - Return: 1
  contractDouble:
    Body:
      - $l: 1
      - For: i
        In: range(40)
        Do:
          - $l: [$l, $l]
      - Return: $.nestedLists($l)
  heatDouble:
    Body:
      - $l: [1]
      - For: i
        In: range(60)
        Do:
          - $l: [$l, $l]
      - $s: new(sys:HeatStack, name => s)
      - $s.setTemplate({resources => {r => $l}})
      - $s.push()
  heatDeep:
    Body:
      - $l: [1]
      - For: i
        In: range(100)
        Do:
          - For: j
            In: range(1000)
            Do:
              - $l: [$l]
      - $s: new(sys:HeatStack, name => s)
      - $s.updateTemplate({resources => {r => $l}})
  bindDouble:
    Body:
      - $l: concat('$', 'x')
      - For: i
        In: range(60)
        Do:
          - $l: [$l, $l]
      - $r: bind($l, dict(x => 7))
      - For: i
        In: range(60)
        Do:
          - $r: $r[1]
      - Return: $r
  bindDeep:
    Body:
      - $l: concat('$', 'x')
      - For: i
        In: range(100)
        Do:
          - For: j
            In: range(1000)
            Do:
              - $l: [$l]
      - Return: len(bind($l, dict(x => 7)))
  patchDeep:
    Body:
      - $l: [1]
      - $p: ''
      - $segments: range(1000).select('/0').join('')
      - For: i
        In: range(100)
        Do:
          - $p: $p + $segments
          - For: j
            In: range(1000)
            Do:
              - $l: [$l]
      - $ops: [{op: replace, path: $p, value: 5}, {op: test, path: $p, value: 5}]
      - $r: patch($l, $ops)
      - Return: len($r)
  fanOut:
    Body:
      - $r: pselect(range(0, 10000), sleep(0))
      - Return: len($r)
  fanOutRange:
    Body:
      - $r: pselect(range(0, 200000), sleep(0))
      - Return: len($r)
  fanOutNested:
    Body:
      - Try:
          - $r: range(0, 5).pselect(range(0, 5).pselect(sleep(0)))
        Catch:
          - Do:
              - $.caught: true
      - Return: 1
  count:
    Arguments:
      - n: {Contract: $.int()}
    Body:
      - $i: 0
      - While: $i < $n
        Do:
          - $i: $i + 1
      - Return: $i
  growTo:
    Arguments:
      - n: {Contract: $.int()}
    Body:
      - For: round
        In: range(8)
        Do:
          - $l: []
          - $d: {}
          - For: i
            In: range($n / 100)
            Do:
              - For: j
                In: range(50)
                Do:
                  - $l: $l + [$j]
                  - $l: $l.append($i)
                  - $d: $d + dict($j => $i)
      - Return: list(len($l), len($d), $l.last())
  grow2500:
    Body:
      - Return: $this.growTo(2500)
  grow10k:
    Body:
      - Return: $this.growTo(10000)
"#;

/// The package, in a directory removed when the value is dropped.
fn package() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    // A list contract nested 40 deep: `[[...[$.int()]...]]`.
    let nested = format!("{}$.int(){}", "[".repeat(40), "]".repeat(40));
    let class = LOOPER.replace("NESTED_CONTRACT", &nested);
    std::fs::write(dir.join("Classes/Looper.yaml"), class).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.limits\nVersion: 1.0.0\nClasses:\n  demo.Looper: Looper.yaml\n",
    )
    .unwrap();
    tmp
}

fn run(limits: Limits, method: &str) -> Result<serde_json::Value, vetro_dsl::runtime::types::Exc> {
    let pkg = package();
    let mut lib = Library::load(&[pkg.path().to_path_buf()]);
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
    let pkg = package();
    let mut lib = Library::load(&[pkg.path().to_path_buf()]);
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

/// Run `method` under a 300 ms time limit: the error that ended it (the
/// call's, else writing the model's) and how long it took.
fn timed_error(method: &str) -> (String, Duration) {
    let limits = Limits {
        max_time: Some(Duration::from_millis(300)),
        ..Limits::default()
    };
    let started = std::time::Instant::now();
    let e = match run_whole(limits, method) {
        Ok(out) => match out.result {
            Ok(v) => panic!("{method} returned {v}"),
            Err(e) => e,
        },
        Err(e) => e,
    };
    (e.names().join(","), started.elapsed())
}

/// Run `method` and the result it returned. The time limit only guards
/// against a runaway: these methods finish in seconds even in a debug build
/// on a loaded machine.
fn result_of(method: &str) -> serde_json::Value {
    let limits = Limits {
        max_time: Some(Duration::from_secs(120)),
        ..Limits::default()
    };
    let out = run_whole(limits, method).unwrap_or_else(|e| panic!("{}", e.message()));
    out.result.unwrap_or_else(|e| panic!("{}", e.message()))
}

/// A loop growing a list (`$l: $l + [$x]`, `$l.append($x)`) takes time
/// linear in its length: four times the items take about four times as long
/// (sixteen if each step copied the list). 10,000 items is as long as a
/// list may grow (`yaql.limitIterators`).
#[test]
fn growing_a_list_in_a_loop_is_linear() {
    let timed = |method: &str| {
        let started = std::time::Instant::now();
        let v = result_of(method);
        (v, started.elapsed())
    };
    let (small, t_small) = timed("grow2500");
    let (large, t_large) = timed("grow10k");
    assert_eq!(small, json!([2500, 50, 24]));
    assert_eq!(large, json!([10000, 50, 99]));
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    assert!(ratio < 9.0, "{t_small:?} then {t_large:?}: {ratio:.1}x");
}

#[test]
fn a_result_sharing_its_parts_cannot_outrun_the_time_limit() {
    let (class, took) = timed_error("resultDouble");
    assert!(class.contains("TimeLimitExceeded"), "{class}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_model_sharing_its_parts_or_nested_deep_loads_with_new() {
    // Indexing the model's ids visits each shared part once, without recursion.
    assert_eq!(result_of("newDouble"), json!(1));
    assert_eq!(result_of("newDeep"), json!(1));
}

#[test]
fn nested_list_contracts_on_a_value_sharing_its_parts_stop_at_the_time_limit() {
    let (class, took) = timed_error("contractDouble");
    assert!(class.contains("TimeLimitExceeded"), "{class}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_heat_template_sharing_its_parts_stops_at_the_time_limit_when_pushed() {
    let (class, took) = timed_error("heatDouble");
    assert!(class.contains("TimeLimitExceeded"), "{class}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_heat_template_nested_deeper_than_json_can_be_read_is_refused() {
    let limits = Limits {
        max_time: Some(Duration::from_secs(20)),
        ..Limits::default()
    };
    let out = run_whole(limits, "heatDeep").unwrap_or_else(|e| panic!("{}", e.message()));
    let e = out
        .result
        .expect_err("a template nested 100,000 deep was merged");
    assert!(
        e.message().contains("nests deeper than 100 levels"),
        "{}",
        e.message()
    );
}

#[test]
fn bind_keeps_shared_parts_shared_and_nests_deep_without_a_crash() {
    assert_eq!(result_of("bindDouble"), json!(7));
    assert_eq!(result_of("bindDeep"), json!(1));
}

#[test]
fn patch_follows_a_path_100_000_segments_long_without_a_crash() {
    assert_eq!(result_of("patchDeep"), json!(1));
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
        max_green_threads: None,
        cancel: None,
    };
    assert!(error_class(run(limits, "spin")).contains("StepLimitExceeded"));
}

#[test]
fn pselect_over_10_000_items_runs_them_a_pool_at_a_time() {
    assert_eq!(run(Limits::default(), "fanOut").unwrap(), json!(10000));
}

#[test]
fn pselect_over_a_range_of_200_000_ends_without_a_crash() {
    // Each branch sleeps inside a YAQL evaluation, holding its stack: the
    // pool and the session's bound keep that from exhausting the mappings.
    match run(Limits::default(), "fanOutRange") {
        Ok(n) => assert_eq!(n, json!(200000)),
        Err(e) => {
            let names = e.names().join(",");
            assert!(
                [
                    "CollectionTooLarge",
                    "ThreadLimitExceeded",
                    "MemoryLimitExceeded"
                ]
                .iter()
                .any(|c| names.contains(c)),
                "{e:?}"
            );
        }
    }
}

#[test]
fn green_threads_past_the_session_bound_fail_uncaught_and_the_thread_stays_usable() {
    let limits = Limits {
        max_green_threads: Some(10),
        ..Limits::default()
    };
    let e = run(limits, "fanOutNested").unwrap_err();
    assert!(e.names().join(",").contains("ThreadLimitExceeded"), "{e:?}");
    assert!(
        e.message().contains("more than 10 green threads"),
        "{}",
        e.message()
    );
    // The next session on this OS thread finds the green-thread state clean.
    assert_eq!(run(Limits::default(), "fanOutNested").unwrap(), json!(1));
}

#[test]
fn time_limit_stops_an_endless_loop() {
    let limits = Limits {
        max_steps: None,
        max_time: Some(Duration::from_millis(200)),
        max_memory: None,
        max_green_threads: None,
        cancel: None,
    };
    assert!(error_class(run(limits, "spin")).contains("TimeLimitExceeded"));
}

#[test]
fn work_under_the_limits_runs() {
    let pkg = package();
    let mut lib = Library::load(&[pkg.path().to_path_buf()]);
    lib.limits = Limits {
        max_steps: Some(10_000),
        max_time: None,
        max_memory: None,
        max_green_threads: None,
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
    let pkg = package();
    let mut lib = Library::load(&[pkg.path().to_path_buf()]);
    // Without the cancellation the time limit would end the loop.
    lib.limits.max_time = Some(Duration::from_secs(20));
    let rt = lib.session();
    let flag = Arc::new(AtomicBool::new(false));
    rt.set_cancel_flag(flag.clone());
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
