//! A backend waiting for the cloud is told when the session is cancelled or
//! out of time; the run then ends with the session's own error, which a
//! MuranoPL `Try` around the waiting call cannot catch.

use serde_json::{json, Value as Json};
use std::time::{Duration, Instant};
use vetro_dsl::cloud::{AgentCall, CloudBackend, Interrupt};
use vetro_dsl::host::{self, Library, Target};
use vetro_dsl::runtime::limits::{is_cancelled, CancelFlag, Limits};

const PUSHER: &str = r#"
Namespaces:
  =: demo
  sys: io.murano.system
Name: demo.Pusher
Properties:
  caught: {Usage: Out, Contract: $}
Methods:
  deploy:
    Body:
      - $stack: new(sys:HeatStack, name => 'waits')
      - $stack.setTemplate({resources => {}})
      - Try:
          - $stack.push()
        Catch:
          - Do:
              - $.caught: true
"#;

/// A cloud whose stacks never finish: a push waits until the session's
/// interrupt fires, looking at it as a real backend does.
#[derive(Default)]
struct NeverDone {
    interrupt: Interrupt,
}

impl CloudBackend for NeverDone {
    fn name(&self) -> &'static str {
        "never-done"
    }
    fn push_stack(&mut self, stack: &str, _: &Json, _: &Json) -> Result<Json, String> {
        loop {
            if let Some(why) = self.interrupt.reason() {
                return Err(format!("stack {stack}: stopped waiting: {why}"));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    fn delete_stack(&mut self, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn agent_call(&mut self, _: &AgentCall<'_>, _: &Json) -> Result<Json, String> {
        Ok(Json::Null)
    }
    fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.interrupt = interrupt;
    }
    fn stack_template(&self, _: &str) -> Option<Json> {
        None
    }
}

/// The package, in a directory removed when the value is dropped.
fn package() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("Classes")).unwrap();
    std::fs::write(dir.join("Classes/Pusher.yaml"), PUSHER).unwrap();
    std::fs::write(
        dir.join("manifest.yaml"),
        "Format: MuranoPL/1.4\nFullName: demo.pusher\nVersion: 1.0.0\nClasses:\n  demo.Pusher: Pusher.yaml\n",
    )
    .unwrap();
    tmp
}

fn deploy(limits: Limits) -> (host::RunOutcome, Duration) {
    let pkg = package();
    let mut lib = Library::load(&[pkg.path().to_path_buf()]);
    assert!(lib.problems().is_empty(), "{:?}", lib.problems());
    lib.limits = limits;
    let model = json!({"?": {"id": "p1", "type": "demo.Pusher"}});
    let h = lib.host(Box::new(NeverDone::default()), None);
    let start = Instant::now();
    let out = host::run(&lib, &model, &Target::Root, "deploy", h).unwrap();
    (out, start.elapsed())
}

#[test]
fn cancelling_a_session_ends_a_stack_wait_uncaught() {
    let flag = CancelFlag::new();
    let canceller = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            flag.cancel();
        })
    };
    let (out, took) = deploy(Limits {
        cancel: Some(flag),
        ..Limits::default()
    });
    canceller.join().unwrap();
    let e = out.result.unwrap_err();
    assert!(is_cancelled(&e), "{}", e.message());
    assert!(took < Duration::from_secs(5), "{took:?}");
    let caught = &out.model["Objects"]["caught"];
    assert!(
        caught.is_null(),
        "Try caught the cancellation: {}",
        out.model
    );
}

#[test]
fn the_session_time_limit_ends_a_stack_wait() {
    let (out, took) = deploy(Limits {
        max_time: Some(Duration::from_millis(400)),
        ..Limits::default()
    });
    let e = out.result.unwrap_err();
    assert!(
        e.message().contains("ran longer than 0.4 s"),
        "{}",
        e.message()
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
}
