//! The backend against the real Keystone, Heat and RabbitMQ that
//! `.ci/setup.d/05-openstack.sh` starts (VETRO_TEST_CLOUDS_YAML,
//! VETRO_TEST_AMQP_URL); each test skips with a message without them.

use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use vetro_dsl::cloud::{AgentCall, CloudBackend, Interrupt};
use vetro_dsl::runtime::limits::CancelFlag;
use vetro_openstack::{credentials, OpenStackCloud, Options};

#[path = "support/heat_turn.rs"]
mod heat_turn;
use heat_turn::heat_turn;

fn clouds() -> Option<PathBuf> {
    let c = std::env::var_os("VETRO_TEST_CLOUDS_YAML").map(PathBuf::from);
    if c.is_none() {
        eprintln!("skipped: VETRO_TEST_CLOUDS_YAML is not set (.ci/setup.d/05-openstack.sh starts Keystone and Heat)");
    }
    c
}

fn amqp() -> Option<String> {
    let u = std::env::var("VETRO_TEST_AMQP_URL").ok();
    if u.is_none() {
        eprintln!(
            "skipped: VETRO_TEST_AMQP_URL is not set (.ci/setup.d/05-openstack.sh starts RabbitMQ)"
        );
    }
    u
}

fn connect(clouds: &Path, opts: Options) -> OpenStackCloud {
    let file = clouds.display().to_string();
    let lookup = move |k: &str| (k == "OS_CLIENT_CONFIG_FILE").then(|| file.clone());
    let opts = Options {
        cloud: Some("vetro-test".into()),
        ..opts
    };
    let creds = credentials(&opts, &lookup, Path::new("/")).unwrap();
    OpenStackCloud::connect(creds, &opts).unwrap()
}

fn unique(prefix: &str) -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{prefix}-{:x}", n)
}

#[test]
fn stacks_are_created_updated_and_deleted_once() {
    let Some(clouds) = clouds() else { return };
    let _turn = heat_turn();
    let mut cloud = connect(&clouds, Options::default());
    let name = unique("vetro-test-stack");
    let t1 = json!({"heat_template_version": "2013-05-23",
        "parameters": {"greeting": {"type": "string"}},
        "resources": {"word": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}},
        "outputs": {"len": {"value": {"str_replace": {"template": "G-W", "params": {"G": {"get_param": "greeting"}, "W": {"get_attr": ["word", "value"]}}}}}}});
    let start = Instant::now();
    let out = cloud
        .push_stack(&name, &t1, &json!({"greeting": "hi"}))
        .unwrap();
    let first = start.elapsed();
    let value = out["len"].as_str().unwrap().to_string();
    assert!(value.starts_with("hi-") && value.len() == 11, "{out}");
    // A second push (a retried task) updates the same stack.
    let mut t2 = t1.clone();
    t2["resources"]["extra"] = json!({"type": "OS::Heat::Value", "properties": {"value": "x"}});
    let out2 = cloud
        .push_stack(&name, &t2, &json!({"greeting": "ho"}))
        .unwrap();
    assert!(out2["len"].as_str().unwrap().starts_with("ho-"), "{out2}");
    // A fresh backend (another run) finds the stack by name.
    let other = connect(&clouds, Options::default());
    assert_eq!(
        other.stack_template(&name).unwrap()["resources"]["extra"]["type"],
        "OS::Heat::Value"
    );
    assert!(other.stack_outputs(&name).unwrap()["len"]
        .as_str()
        .unwrap()
        .starts_with("ho-"));
    cloud.delete_stack(&name).unwrap();
    assert!(connect(&clouds, Options::default())
        .stack_template(&name)
        .is_none());
    eprintln!("create took {first:?}");
}

#[test]
fn a_failing_resource_fails_the_push_with_heats_reason() {
    let Some(clouds) = clouds() else { return };
    let _turn = heat_turn();
    let mut cloud = connect(&clouds, Options::default());
    let name = unique("vetro-test-fail");
    let t = json!({"heat_template_version": "2013-05-23",
        "resources": {"broken": {"type": "OS::Heat::TestResource", "properties": {"fail": true, "value": "v"}}}});
    let e = cloud.push_stack(&name, &t, &json!({})).unwrap_err();
    let _ = cloud.delete_stack(&name);
    assert!(e.contains(&format!("stack {name} is CREATE_FAILED")), "{e}");
    assert!(e.contains("broken: "), "{e}");
    assert!(e.contains("Test Resource failed"), "{e}");
}

#[test]
fn the_heat_environment_is_merged_into_every_push() {
    let Some(clouds) = clouds() else { return };
    let _turn = heat_turn();
    let env = json!({"resource_registry": {"OS::Nova::Server": "OS::Heat::None"}});
    let mut cloud = connect(
        &clouds,
        Options {
            heat_environment: Some(vetro_openstack::HeatEnvironment {
                environment: env,
                files: Default::default(),
            }),
            ..Options::default()
        },
    );
    let name = unique("vetro-test-env");
    let t = json!({"heat_template_version": "2013-05-23",
        "resources": {"vm": {"type": "OS::Nova::Server", "properties": {"image": "none", "flavor": "none", "user_data": "#!/bin/sh"}}}});
    let r = cloud.push_stack(&name, &t, &json!({}));
    let _ = cloud.delete_stack(&name);
    r.unwrap();
}

fn agent_config(dir: &Path, amqp: &str, queue: &str, results: &str) -> vetro_agent::AgentConfig {
    let b = vetro_agent::amqp::Broker::from_url(amqp).unwrap();
    let text = format!(
        "[DEFAULT]\nstorage = {}\n[rabbitmq]\nhost = {}\nport = {}\nlogin = {}\npassword = {}\nvirtual_host = {}\ninput_queue = {queue}\nresult_routing_key = {results}\n",
        dir.display(), b.host, b.port, b.login, b.password, b.virtual_host
    );
    vetro_agent::AgentConfig::parse(&text, "test.conf").unwrap()
}

type AgentThread = std::thread::JoinHandle<Result<(), vetro_agent::AgentError>>;

/// `vetro agent` in a thread of its own, until the sender is used.
fn spawn_agent(
    config: vetro_agent::AgentConfig,
) -> (tokio::sync::oneshot::Sender<()>, AgentThread) {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let agent = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(vetro_agent::Agent::new(config).unwrap().serve(async {
            let _ = stop_rx.await;
        }))
    });
    (stop_tx, agent)
}

fn plan(id: &str, script: &str) -> Json {
    json!({"FormatVersion": "2.0.0", "Version": "1.0.0", "Name": "t", "ID": id, "Action": "Execute",
           "Body": "return run(args.who)", "Parameters": {"who": "ci"},
           "Files": {"f": {"Name": "run.sh", "BodyType": "Text", "Body": script}},
           "Scripts": {"run": {"Type": "Application", "Version": "1.0.0", "EntryPoint": "f", "Files": [],
                               "Options": {"captureStdout": true, "captureStderr": true}}}})
}

#[test]
fn plans_round_trip_through_rabbitmq_and_vetro_agent() {
    let (Some(clouds), Some(amqp)) = (clouds(), amqp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let queue = unique("e-test-h");
    let results = unique("-execution-results-test");
    let (stop_tx, agent) = spawn_agent(agent_config(dir.path(), &amqp, &queue, &results));
    let mut cloud = connect(
        &clouds,
        Options {
            amqp_url: Some(amqp),
            ..Options::default()
        },
    );
    let call = AgentCall {
        host: "test vm",
        queue: &queue,
        result_queue: &results,
        timeout: Some(Duration::from_secs(30)),
    };
    let ok = cloud
        .agent_call(&call, &plan("p1", "#!/bin/sh\necho \"hello $1\"\n"))
        .unwrap();
    assert_eq!(
        ok,
        json!({"exitCode": 0, "stdout": "hello ci", "stderr": null})
    );
    // Round trips after the first (queues declared, consumer running).
    let mut times = Vec::new();
    for i in 0..5 {
        let t = Instant::now();
        cloud
            .agent_call(&call, &plan(&format!("r{i}"), "#!/bin/sh\ntrue\n"))
            .unwrap();
        times.push(t.elapsed());
    }
    eprintln!("agent round trips: {times:?}");
    let e = cloud
        .agent_call(
            &call,
            &plan("p2", "#!/bin/sh\necho 'disk full' >&2\nexit 4\n"),
        )
        .unwrap_err();
    assert_eq!(e, "the agent of test vm answered error 100: Script run returned error code (exit code 4); stderr: disk full");
    let _ = stop_tx.send(());
    agent.join().unwrap().unwrap();
    // Nobody reads this queue now: the call times out naming the instance.
    let quick = AgentCall {
        timeout: Some(Duration::from_millis(500)),
        ..call
    };
    let e = cloud
        .agent_call(&quick, &plan("p3", "#!/bin/sh\ntrue\n"))
        .unwrap_err();
    assert_eq!(
        e,
        format!("the agent of test vm did not answer within 0.5 s (queue {queue})")
    );
}

#[path = "support/tcp_proxy.rs"]
mod tcp_proxy;

/// The test cloud's credentials with Keystone reached at `auth_url`.
fn credentials_via(clouds: &Path, auth_url: &str) -> vetro_openstack::clouds::Credentials {
    let file = clouds.display().to_string();
    let lookup = move |k: &str| (k == "OS_CLIENT_CONFIG_FILE").then(|| file.clone());
    let mut creds =
        vetro_openstack::clouds::from_clouds_yaml("vetro-test", &lookup, Path::new("/")).unwrap();
    creds.auth_url = auth_url.to_string();
    creds
}

#[test]
fn keystone_dropping_connections_is_tried_again_and_a_stopped_one_fails_clearly() {
    let Some(clouds) = clouds() else { return };
    let keystone = std::env::var("VETRO_TEST_KEYSTONE_URL").unwrap();
    let authority = keystone
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let proxy = tcp_proxy::Proxy::start(&authority);
    // The first two connections are closed unanswered, as uwsgi does when
    // it drops one while warming up.
    proxy.refuse_next(2);
    let creds = credentials_via(&clouds, &format!("http://127.0.0.1:{}/v3", proxy.port));
    let cloud = OpenStackCloud::connect(creds, &Options::default()).unwrap();
    assert!(cloud.heat_endpoint().contains("/v1/"));
    assert!(proxy.accepted.load(std::sync::atomic::Ordering::SeqCst) >= 3);
    // Nothing listens: a few tries with backoff, then Keystone's address.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v3", closed.local_addr().unwrap());
    drop(closed);
    let start = Instant::now();
    let e = match OpenStackCloud::connect(credentials_via(&clouds, &url), &Options::default()) {
        Ok(_) => panic!("connected to nothing"),
        Err(e) => e,
    };
    assert!(
        e.starts_with(&format!("Keystone at {url}/auth/tokens cannot be reached")),
        "{e}"
    );
    assert!(e.ends_with("(gave up after 5 tries)"), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_lost_broker_connection_is_made_again_and_the_result_still_arrives() {
    let (Some(clouds), Some(amqp)) = (clouds(), amqp()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let queue = unique("e-reconnect-h");
    let results = unique("-execution-results-reconnect");
    let (stop_tx, agent) = spawn_agent(agent_config(dir.path(), &amqp, &queue, &results));
    // The engine reaches the broker through the proxy; the agent directly.
    let broker = vetro_agent::amqp::Broker::from_url(&amqp).unwrap();
    let proxy = tcp_proxy::Proxy::start(&format!("{}:{}", broker.host, broker.port));
    let via = format!(
        "amqp://{}:{}@127.0.0.1:{}/%2f",
        broker.login, broker.password, proxy.port
    );
    let mut cloud = connect(
        &clouds,
        Options {
            amqp_url: Some(via),
            ..Options::default()
        },
    );
    let call = AgentCall {
        host: "test vm",
        queue: &queue,
        result_queue: &results,
        timeout: Some(Duration::from_secs(30)),
    };
    // While the script runs, the engine's connection is cut.
    let cutter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        proxy.cut();
        proxy
    });
    let r = cloud.agent_call(
        &call,
        &plan("slow", "#!/bin/sh\nsleep 1.5\necho finished\n"),
    );
    let proxy = cutter.join().unwrap();
    let _ = stop_tx.send(());
    agent.join().unwrap().unwrap();
    assert_eq!(
        r.unwrap(),
        json!({"exitCode": 0, "stdout": "finished", "stderr": null})
    );
    // It connected again through the proxy.
    assert!(proxy.accepted.load(std::sync::atomic::Ordering::SeqCst) >= 2);
}

/// A backend whose Heat is reached through `proxy` (an endpoint override,
/// as clouds.yaml's `orchestration_endpoint_override` gives one).
fn connect_heat_via(clouds: &Path, proxy: &tcp_proxy::Proxy, opts: &Options) -> OpenStackCloud {
    let keystone = std::env::var("VETRO_TEST_KEYSTONE_URL").unwrap();
    let mut creds = credentials_via(clouds, &keystone);
    creds.endpoint_overrides.insert(
        "orchestration".into(),
        format!("http://127.0.0.1:{}/v1/%(project_id)s", proxy.port),
    );
    OpenStackCloud::connect(creds, opts).unwrap()
}

fn heat_authority() -> String {
    let heat = std::env::var("VETRO_TEST_HEAT_URL").unwrap();
    heat.trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn heat_answering_503_or_slowly_is_tried_again_then_fails_clearly() {
    let Some(clouds) = clouds() else { return };
    let _turn = heat_turn();
    let proxy = tcp_proxy::Proxy::start(&heat_authority());
    let opts = Options {
        request_timeout: Some(Duration::from_secs(1)),
        ..Options::default()
    };
    let mut cloud = connect_heat_via(&clouds, &proxy, &opts);
    let name = unique("vetro-test-flaky");
    let t = json!({"heat_template_version": "2013-05-23",
        "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": "x"}}},
        "outputs": {"v": {"value": {"get_attr": ["v", "value"]}}}});
    // Two 503s: tried again, the push succeeds.
    proxy.unavailable_next(2);
    let out = cloud.push_stack(&name, &t, &json!({})).unwrap();
    assert_eq!(out["v"], "x");
    // Always 503: a clear failure after five tries.
    proxy.unavailable_next(1000);
    let e = cloud.delete_stack(&name).unwrap_err();
    assert!(
        e.starts_with("Heat answered 503 Service Unavailable: no server is available (test proxy)"),
        "{e}"
    );
    assert!(e.ends_with("(gave up after 5 tries)"), "{e}");
    // Slower than the request timeout: the same.
    proxy.unavailable_next(0);
    proxy.delay(Duration::from_secs(3));
    let e = cloud.delete_stack(&name).unwrap_err();
    assert!(e.contains("did not answer in time"), "{e}");
    assert!(e.ends_with("(gave up after 5 tries)"), "{e}");
    proxy.delay(Duration::ZERO);
    cloud.delete_stack(&name).unwrap();
}

#[path = "support/own_rabbitmq.rs"]
mod own_rabbitmq;

#[test]
fn a_restarted_broker_loses_no_result() {
    let Some(clouds) = clouds() else { return };
    let node = match own_rabbitmq::Node::start() {
        Ok(n) => n,
        Err(why) => {
            eprintln!("skipped: no RabbitMQ node of the test's own: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let queue = unique("e-restart-h");
    let results = unique("-execution-results-restart");
    let (stop_tx, agent) = spawn_agent(agent_config(dir.path(), &node.url(), &queue, &results));
    let mut cloud = connect(
        &clouds,
        Options {
            amqp_url: Some(node.url()),
            ..Options::default()
        },
    );
    let call = AgentCall {
        host: "test vm",
        queue: &queue,
        result_queue: &results,
        timeout: Some(Duration::from_secs(45)),
    };
    // The broker restarts while the script runs; both sides connect again
    // and declare their queues again.
    let node = std::sync::Arc::new(node);
    let restarter = {
        let node = node.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            node.restart()
        })
    };
    let r = cloud.agent_call(
        &call,
        &plan("across", "#!/bin/sh\nsleep 2\necho finished\n"),
    );
    let away = restarter.join().unwrap();
    let _ = stop_tx.send(());
    agent.join().unwrap().unwrap();
    eprintln!("the broker was away {away:?}");
    assert_eq!(
        r.unwrap(),
        json!({"exitCode": 0, "stdout": "finished", "stderr": null})
    );
}

/// An interrupt that fires `after` from now, as a deployment cancelled
/// then would; and when it fired.
fn cancel_after(after: Duration) -> (Interrupt, std::thread::JoinHandle<Instant>) {
    let flag = CancelFlag::new();
    let interrupt = Interrupt::on_cancel(&flag);
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(after);
        flag.cancel();
        Instant::now()
    });
    (interrupt, canceller)
}

/// Heat's status of stack `name` once it is no longer in progress (at most
/// `limit` later), looked at every 200 ms.
fn settled(cloud: &OpenStackCloud, name: &str, limit: Duration) -> String {
    let start = Instant::now();
    loop {
        let status = cloud.find_stack(name).unwrap().unwrap().status;
        if !status.ends_with("_IN_PROGRESS") || start.elapsed() > limit {
            return status;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_cancelled_deployment_stops_waiting_for_heat_and_heat_stops_too() {
    let Some(clouds) = clouds() else { return };
    let _turn = heat_turn();
    let mut cloud = connect(&clouds, Options::default());
    let name = unique("vetro-test-cancel");
    // `first` takes `create`/`update` seconds; `then`, which Heat starts
    // after it, 30 s more. Heat lets a resource in progress finish when
    // asked to cancel, and starts no other.
    let chain = |value: &str, create: u32, update: u32, then: bool| {
        let mut t = json!({"heat_template_version": "2013-05-23",
            "resources": {"first": {"type": "OS::Heat::TestResource",
                "properties": {"value": value, "action_wait_secs": {"create": create, "update": update}}}}});
        if then {
            t["resources"]["then"] = json!({"type": "OS::Heat::TestResource", "depends_on": "first",
                "properties": {"value": "v", "action_wait_secs": {"create": 30}}});
        }
        t
    };
    // Heat takes about a second to accept a create (it makes a trust).
    let (interrupt, canceller) = cancel_after(Duration::from_secs(2));
    cloud.set_interrupt(interrupt);
    let e = cloud
        .push_stack(&name, &chain("a", 3, 0, true), &json!({}))
        .unwrap_err();
    let late = canceller.join().unwrap().elapsed();
    let cancelled = Instant::now();
    assert_eq!(
        e,
        format!("stack {name}: stopped waiting: the session was cancelled")
    );
    assert!(late < Duration::from_millis(400), "noticed {late:?} late");
    // Heat was asked to stop the create: it fails once `first` is done,
    // never creating `then`.
    assert_eq!(
        settled(&cloud, &name, Duration::from_secs(20)),
        "CREATE_FAILED"
    );
    assert!(
        cancelled.elapsed() < Duration::from_secs(15),
        "{:?}",
        cancelled.elapsed()
    );
    // The next push updates the failed stack; an update cancelled is
    // rolled back by Heat to what the stack was.
    cloud.set_interrupt(Interrupt::default());
    cloud
        .push_stack(&name, &chain("a", 0, 0, false), &json!({}))
        .unwrap();
    let (interrupt, canceller) = cancel_after(Duration::from_secs(1));
    cloud.set_interrupt(interrupt);
    let e = cloud
        .push_stack(&name, &chain("b", 0, 2, true), &json!({}))
        .unwrap_err();
    canceller.join().unwrap();
    let cancelled = Instant::now();
    assert!(
        e.ends_with("stopped waiting: the session was cancelled"),
        "{e}"
    );
    assert_eq!(
        settled(&cloud, &name, Duration::from_secs(20)),
        "ROLLBACK_COMPLETE"
    );
    assert!(
        cancelled.elapsed() < Duration::from_secs(15),
        "{:?}",
        cancelled.elapsed()
    );
    cloud.set_interrupt(Interrupt::default());
    cloud.delete_stack(&name).unwrap();
}

#[test]
fn updates_that_start_within_one_second_are_each_seen_to_end() {
    let Some(clouds) = clouds() else { return };
    let _turn = heat_turn();
    // A missed end would wait this long, then fail.
    let opts = Options {
        stack_timeout: Some(Duration::from_secs(20)),
        heat_notifications: std::env::var("VETRO_TEST_HEAT_NOTIFICATIONS").ok(),
        ..Options::default()
    };
    let mut cloud = connect(&clouds, opts);
    let name = unique("vetro-test-quick");
    let t = |v: usize| {
        json!({"heat_template_version": "2013-05-23",
            "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": v.to_string()}}},
            "outputs": {"v": {"value": {"get_attr": ["v", "value"]}}}})
    };
    cloud.push_stack(&name, &t(0), &json!({})).unwrap();
    // Heat's updated_time has whole seconds: updates one after the other
    // (at most six) until two started in the same second, each awaited to
    // its end.
    let mut last = None;
    let mut same_second = false;
    for v in 1..=6 {
        let start = Instant::now();
        let out = cloud.push_stack(&name, &t(v), &json!({})).unwrap();
        assert_eq!(out["v"], v.to_string(), "update {v}");
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "update {v}: {:?}",
            start.elapsed()
        );
        let updated = cloud.find_stack(&name).unwrap().unwrap().updated;
        if updated.is_some() && updated == last {
            same_second = true;
            break;
        }
        last = updated;
    }
    cloud.delete_stack(&name).unwrap();
    eprintln!("two updates started within one second: {same_second}");
}

#[test]
fn heats_notifications_end_the_wait_and_polling_remains_without_them() {
    let Some(clouds) = clouds() else { return };
    let Ok(url) = std::env::var("VETRO_TEST_HEAT_NOTIFICATIONS") else {
        eprintln!("skipped: VETRO_TEST_HEAT_NOTIFICATIONS is not set (the test Heat sends no notifications)");
        return;
    };
    let _turn = heat_turn();
    let notified = |url: String| {
        connect(
            &clouds,
            Options {
                heat_notifications: Some(url),
                ..Options::default()
            },
        )
    };
    let mut cloud = notified(url.clone());
    let name = unique("vetro-test-notified");
    let t = |v: &str| {
        json!({"heat_template_version": "2013-05-23",
            "resources": {"v": {"type": "OS::Heat::TestResource",
                "properties": {"value": v, "action_wait_secs": {"update": 1}}}},
            "outputs": {"v": {"value": {"get_attr": ["v", "output"]}}}})
    };
    // Heat declares its exchange with its first notification, if this is it.
    cloud.push_stack(&name, &t("a"), &json!({})).unwrap();
    assert!(
        cloud.heat_notifications_ready(Duration::from_secs(15)),
        "no queue bound to Heat's notifications"
    );
    // Heat works 1 s or a little more: polling alone would look at about
    // 0.1, 0.2, 0.3 ... 1.1, 1.3 s; the notification wakes the wait at once.
    // On a busy machine a look can still see the stack done before the
    // notification arrives: of three updates, one must be woken.
    let mut timings = Vec::new();
    for v in ["b", "c", "d"] {
        let out = cloud.push_stack(&name, &t(v), &json!({})).unwrap();
        assert_eq!(out["v"], v);
        timings.push(cloud.last_heat_timing());
        if timings
            .last()
            .is_some_and(|t| t.woken > std::time::UNIX_EPOCH)
        {
            break;
        }
    }
    assert!(
        timings.iter().any(|t| t.woken > std::time::UNIX_EPOCH),
        "no wait was woken by Heat's notification: {timings:?}"
    );
    // An exchange Heat does not publish to: nothing arrives, polling ends
    // the wait as before.
    let mut deaf = notified(format!("{url}?exchange=vetro-test-no-such-exchange"));
    assert!(!deaf.heat_notifications_ready(Duration::from_millis(300)));
    deaf.delete_stack(&name).unwrap();
    assert_eq!(deaf.last_heat_timing().woken, std::time::UNIX_EPOCH);
}

#[test]
fn a_cancelled_deployment_stops_waiting_for_an_agent() {
    let (Some(clouds), Some(amqp)) = (clouds(), amqp()) else {
        return;
    };
    let mut cloud = connect(
        &clouds,
        Options {
            amqp_url: Some(amqp),
            ..Options::default()
        },
    );
    // Nobody reads this queue; the call would wait a minute.
    let queue = unique("e-cancel-h");
    let results = unique("-execution-results-cancel");
    let call = AgentCall {
        host: "test vm",
        queue: &queue,
        result_queue: &results,
        timeout: Some(Duration::from_secs(60)),
    };
    let (interrupt, canceller) = cancel_after(Duration::from_millis(500));
    cloud.set_interrupt(interrupt);
    let e = cloud
        .agent_call(&call, &plan("c1", "#!/bin/sh\ntrue\n"))
        .unwrap_err();
    let late = canceller.join().unwrap().elapsed();
    assert_eq!(
        e,
        "the agent of test vm: stopped waiting: the session was cancelled"
    );
    assert!(late < Duration::from_millis(250), "noticed {late:?} late");
}
