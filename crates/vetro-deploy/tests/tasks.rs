//! `run_task` over the bundled example: deploy, action, policy gate,
//! cancellation, deletion.

use serde_json::{json, Value as Json};
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vetro_deploy::resolve::zip_dir;
use vetro_deploy::{
    run_task, Level, MemoryResolver, Outcome, PackageCache, StatusReport, Task, TaskKind,
    TaskLimits, TaskOutput,
};

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/murano")
}

fn example_model() -> Json {
    let text = std::fs::read_to_string(examples().join("environment.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The example's model as the service stores it (apps under `services`).
fn stored_model() -> Json {
    let mut m = example_model();
    let apps = m["Objects"]
        .as_object_mut()
        .unwrap()
        .remove("applications")
        .unwrap();
    m["Objects"]["services"] = apps;
    m
}

struct Env {
    resolver: MemoryResolver,
    cache_dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let mut resolver = MemoryResolver::default();
        resolver
            .add(zip_dir(&examples().join("webserver")).unwrap())
            .unwrap();
        Env {
            resolver,
            cache_dir: tempfile::tempdir().unwrap(),
        }
    }

    fn run(
        &self,
        kind: TaskKind,
        model: &Json,
        cloud: Option<&Json>,
        policy: Option<&str>,
        cancel: Arc<AtomicBool>,
        on_report: impl FnMut(&StatusReport) + 'static,
    ) -> (TaskOutput, Vec<StatusReport>) {
        let cache = PackageCache::new(self.cache_dir.path());
        let reports = Rc::new(RefCell::new(Vec::new()));
        let seen = reports.clone();
        let mut on_report = on_report;
        let task = Task {
            kind,
            model: model.clone(),
            cloud_state: cloud.cloned(),
            backend: Default::default(),
            project_id: Some("p1".into()),
            policy: policy.map(str::to_string),
            resolver: &self.resolver,
            cache: &cache,
            cancel,
            limits: TaskLimits::default(),
        };
        let out = run_task(
            task,
            Box::new(move |r: &StatusReport| {
                on_report(r);
                seen.borrow_mut().push(r.clone());
            }),
        )
        .unwrap();
        let reports = reports.borrow().clone();
        (out, reports)
    }

    fn simple(
        &self,
        kind: TaskKind,
        model: &Json,
        cloud: Option<&Json>,
    ) -> (TaskOutput, Vec<StatusReport>) {
        self.run(kind, model, cloud, None, Arc::default(), |_| {})
    }
}

fn texts(reports: &[StatusReport]) -> Vec<String> {
    reports.iter().map(|r| r.text.clone()).collect()
}

const WEB: &str = "a1b2c3d4e5f64a7b8c9d0e1f2a3b4c5d";
const ENV: &str = "5e1f0c7a9b2d4e6f8a0b1c2d3e4f5a60";

#[test]
fn deploy_then_action_then_delete() {
    let env = Env::new();
    let (out, reports) = env.simple(TaskKind::Deploy, &stored_model(), None);
    assert_eq!(out.outcome, Outcome::Success, "{:?}", texts(&reports));
    assert!(!out.result.is_exception);
    let web = &out.model["Objects"]["services"][0];
    assert_eq!(web["?"]["id"], WEB);
    assert!(web["url"].as_str().unwrap().starts_with("http://"));
    let actions = web["?"]["_actions"].as_object().unwrap();
    assert!(
        actions.contains_key(&format!("{WEB}_restart")),
        "{actions:?}"
    );
    assert!(texts(&reports)
        .iter()
        .any(|t| t.contains("installing hello on web-1")));
    assert_eq!(reports.last().unwrap().text, "Deployment finished");
    assert!(reports.iter().any(|r| r.entity_id == WEB));
    assert_eq!(out.packages.len(), 1);
    assert_eq!(out.packages[0].fqn, "io.vetro.examples.WebServer");
    let cloud = out.cloud_state.clone().unwrap();
    assert_ne!(cloud, json!(null));

    // The action runs on the deployed model and sees the cloud the deploy left.
    let restart = TaskKind::Action {
        object_id: WEB.into(),
        method: "restart".into(),
        args: json!({}),
    };
    let (act, reports) = env.simple(restart, &out.model, Some(&cloud));
    assert_eq!(act.outcome, Outcome::Success, "{:?}", texts(&reports));
    assert!(!act.result.is_exception);
    assert!(texts(&reports)
        .iter()
        .any(|t| t.contains("restarting the web server")));

    // A second deploy finds the web server deployed.
    let (again, reports) = env.simple(TaskKind::Deploy, &act.model, act.cloud_state.as_ref());
    assert_eq!(again.outcome, Outcome::Success);
    assert!(texts(&reports)
        .iter()
        .any(|t| t.contains("already deployed")));

    // Deletion destroys what the deployments created.
    let (del, reports) = env.simple(TaskKind::Delete, &again.model, again.cloud_state.as_ref());
    assert_eq!(del.outcome, Outcome::Success, "{:?}", texts(&reports));
    assert!(del.model["Objects"].is_null());
    assert_eq!(reports.last().unwrap().text, "Deletion finished");
    let before = serde_json::to_string(&cloud).unwrap();
    let after = serde_json::to_string(del.cloud_state.as_ref().unwrap()).unwrap();
    assert!(
        before.contains("web-1") && !after.contains("web-1"),
        "{after}"
    );
}

#[test]
fn an_unknown_action_fails_the_task() {
    let env = Env::new();
    let (out, _) = env.simple(TaskKind::Deploy, &example_model(), None);
    let kind = TaskKind::Action {
        object_id: WEB.into(),
        method: "deploy".into(),
        args: json!({}),
    };
    let (act, reports) = env.simple(kind, &out.model, out.cloud_state.as_ref());
    assert_eq!(act.outcome, Outcome::CompletedWithErrors);
    assert!(act.result.is_exception);
    let err = reports.iter().find(|r| r.level == Level::Error).unwrap();
    assert!(err.text.contains("not found"), "{}", err.text);
    assert_eq!(
        reports.last().unwrap().text,
        "Action deploy finished with errors"
    );
}

#[test]
fn the_policy_refuses_before_the_engine_runs() {
    let env = Env::new();
    let policy = r#"
predeploy_errors(eid, oid, "instances must not use m1.small") :-
    murano:objects(oid, pid, type), murano:parent_types(oid, "io.murano.resources.Instance"),
    murano:properties(oid, "flavor", "m1.small"), murano:states(eid, state)
"#;
    let model = stored_model();
    let (out, reports) = env.run(
        TaskKind::Deploy,
        &model,
        None,
        Some(policy),
        Arc::default(),
        |_| {},
    );
    assert_eq!(out.outcome, Outcome::CompletedWithErrors);
    assert_eq!(out.violations.len(), 1);
    assert_eq!(
        out.violations[0].object_id,
        "f0e1d2c3b4a54968a7b6c5d4e3f2a1b0"
    );
    assert_eq!(out.violations[0].message, "instances must not use m1.small");
    let errors: Vec<_> = reports.iter().filter(|r| r.level == Level::Error).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].entity_id, "f0e1d2c3b4a54968a7b6c5d4e3f2a1b0");
    assert!(!texts(&reports).iter().any(|t| t.contains("installing")));
    assert_eq!(out.model, model, "the model is left as it was");
    assert!(out.result.is_exception);

    // A policy the model satisfies lets the deployment through.
    let lenient = policy.replace("m1.small", "m1.huge");
    let (ok, _) = env.run(
        TaskKind::Deploy,
        &model,
        None,
        Some(&lenient),
        Arc::default(),
        |_| {},
    );
    assert_eq!(ok.outcome, Outcome::Success);
    assert!(ok.violations.is_empty());
}

#[test]
fn cancel_stops_the_engine_at_its_next_step() {
    let env = Env::new();
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // Cancel as soon as the first report arrives (the engine is mid-deploy).
    let (out, reports) = env.run(
        TaskKind::Deploy,
        &example_model(),
        None,
        None,
        cancel,
        move |_| flag.store(true, Ordering::Relaxed),
    );
    assert_eq!(out.outcome, Outcome::Cancelled, "{:?}", texts(&reports));
    assert!(!texts(&reports)
        .iter()
        .any(|t| t.contains("is available at")));
    assert_eq!(reports.last().unwrap().text, "Deployment cancelled");
}

#[test]
fn a_missing_class_and_a_broken_cloud_state_are_task_errors() {
    let env = Env::new();
    let mut model = example_model();
    model["Objects"]["applications"][0]["?"]["type"] = json!("no.such.App");
    let (out, reports) = env.simple(TaskKind::Deploy, &model, None);
    assert_eq!(out.outcome, Outcome::CompletedWithErrors);
    assert!(reports
        .iter()
        .any(|r| r.level == Level::Error && r.entity_id == ENV));
    let (out, _) = env.simple(
        TaskKind::Deploy,
        &example_model(),
        Some(&json!({"pools": {"nope": 4}})),
    );
    assert_eq!(out.outcome, Outcome::CompletedWithErrors);
}

/// A package with an action taking arguments and a public static method.
fn calc_package() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("Classes")).unwrap();
    std::fs::write(
        dir.path().join("manifest.yaml"),
        "Format: MuranoPL/1.4\nType: Application\nFullName: t.Calc\nClasses:\n  t.Calc: Calc.yaml\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Classes/Calc.yaml"),
        r#"Namespaces:
  =: t
  std: io.murano
Name: Calc
Extends: std:Application
Properties:
  base:
    Contract: $.int()
    Default: 10
Methods:
  deploy:
    Body:
      - Return: null
  add:
    Usage: Action
    Arguments:
      - n:
          Contract: $.int().notNull()
    Body:
      - Return: $.base + $n
  twice:
    Usage: Static
    Scope: Public
    Arguments:
      - x:
          Contract: $.int().notNull()
    Body:
      - Return: $x * 2
"#,
    )
    .unwrap();
    zip_dir(dir.path()).unwrap()
}

#[test]
fn actions_take_arguments_and_static_methods_run_without_a_model() {
    let mut env = Env::new();
    env.resolver.add(calc_package()).unwrap();
    let model = json!({"Objects": {
        "?": {"id": "env1", "type": "io.murano.Environment"}, "name": "e",
        "applications": [{"?": {"id": "calc1", "type": "t.Calc"}, "base": 5}]}});
    let (out, reports) = env.simple(TaskKind::Deploy, &model, None);
    assert_eq!(out.outcome, Outcome::Success, "{:?}", texts(&reports));
    let add = TaskKind::Action {
        object_id: "calc1".into(),
        method: "add".into(),
        args: json!({"n": 4}),
    };
    let (act, _) = env.simple(add, &out.model, out.cloud_state.as_ref());
    assert_eq!(act.result.result, json!(9));
    let bad = TaskKind::Action {
        object_id: "calc1".into(),
        method: "add".into(),
        args: json!({"n": "x"}),
    };
    let (act, _) = env.simple(bad, &out.model, out.cloud_state.as_ref());
    assert!(act.result.is_exception);
    let twice = TaskKind::StaticAction {
        class_name: "t.Calc".into(),
        method: "twice".into(),
        package_name: Some("t.Calc".into()),
        args: json!({"x": 21}),
    };
    let (st, _) = env.simple(twice, &json!(null), None);
    assert_eq!(st.outcome, Outcome::Success);
    assert_eq!(st.result.result, json!(42));
    assert!(st.cloud_state.is_none());
}
