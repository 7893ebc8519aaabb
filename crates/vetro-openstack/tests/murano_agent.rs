//! Wire compatibility with Murano's own agent: execution plans the engine
//! builds and publishes (as `Agent.call` does) are run by Debian's
//! `murano-agent` and its results read back. Needs RabbitMQ
//! (VETRO_TEST_AMQP_URL) and a murano-agent to import
//! (VETRO_TEST_MURANO_AGENT_PATH: the directory on PYTHONPATH that holds
//! its `muranoagent` package, patched for Python 3 by the CI check
//! `.ci/checks.d/27-murano-agent-wire.sh`); skips with a message without them.

use serde_json::{json, Value as Json};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use vetro_agent::amqp::Broker;
use vetro_dsl::cloud::{build_agent_plan, AgentCall};
use vetro_openstack::agents::{interpret, AgentBus};

struct Agent(Child);

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_murano_agent(
    path: &str,
    dir: &Path,
    broker: &Broker,
    queue: &str,
    results: &str,
) -> Agent {
    let conf = dir.join("muranoagent.conf");
    std::fs::write(
        &conf,
        format!(
            "[DEFAULT]\nstorage = {}\nlog_file = {}\n[rabbitmq]\nhost = {}\nport = {}\nlogin = {}\npassword = {}\nvirtual_host = {}\ninput_queue = {queue}\nresult_routing_key = {results}\nresult_exchange =\n",
            dir.join("storage").display(),
            dir.join("agent.log").display(),
            broker.host, broker.port, broker.login, broker.password, broker.virtual_host
        ),
    )
    .unwrap();
    let child = Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import sys; from muranoagent.cmd.run import main; sys.exit(main())",
        ])
        .arg("--config-file")
        .arg(&conf)
        .env("PYTHONPATH", path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs murano-agent");
    Agent(child)
}

/// A package's `Resources/scripts/`, as the engine reads it for a plan.
fn scripts(path: &str) -> Result<String, String> {
    match path {
        "scripts/deploy.sh" => {
            Ok("#!/bin/sh\n. ./common.sh\necho \"$(greet) $1 $(wc -c < payload.bin)\"\n".into())
        }
        "scripts/common.sh" => Ok("greet() { echo deployed for; }\n".into()),
        "scripts/payload.bin" => Ok("\u{1}\u{2}binary\n".into()),
        "scripts/fail.sh" => Ok("#!/bin/sh\necho 'no such package' >&2\nexit 7\n".into()),
        other => Err(format!("no resource {other}")),
    }
}

/// A format 2 template as Murano's Linux applications write them.
fn template(version: &str, entry: &str) -> Json {
    json!({"FormatVersion": version, "Version": "1.0.0", "Name": "Deploy",
           "Parameters": {"who": "vetro"},
           "Body": "return deploy(args.who).stdout",
           "Scripts": {"deploy": {"Type": "Application", "Version": "1.0.0", "EntryPoint": entry,
                                  "Files": ["common.sh", "<payload.bin>"],
                                  "Options": {"captureStdout": true, "captureStderr": true}}}})
}

#[test]
fn murano_agent_runs_the_plans_vetro_sends() {
    let (Ok(amqp), Ok(path)) = (
        std::env::var("VETRO_TEST_AMQP_URL"),
        std::env::var("VETRO_TEST_MURANO_AGENT_PATH"),
    ) else {
        eprintln!("skipped: VETRO_TEST_AMQP_URL or VETRO_TEST_MURANO_AGENT_PATH is not set (.ci/checks.d/27-murano-agent-wire.sh sets them)");
        return;
    };
    let broker = Broker::from_url(&amqp).unwrap();
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let (queue, results) = (
        format!("ewire{n:x}-hvm"),
        format!("-execution-results-wire{n:x}"),
    );
    let call = AgentCall {
        host: "wire vm",
        queue: &queue,
        result_queue: &results,
        timeout: Some(Duration::from_secs(60)),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut bus = AgentBus::new(broker.clone(), None);
    let dir = tempfile::tempdir().unwrap();
    // The first plan declares the queues (murano-agent only reads its
    // queue); the agent starts after it, as an instance boots after the
    // engine's first call.
    let first = build_agent_plan(template("2.0.0", "deploy.sh"), &scripts).unwrap();
    let start = Instant::now();
    let sent = rt.block_on(async {
        let answer = bus.call(&call, &first);
        let agent = start_murano_agent(&path, dir.path(), &broker, &queue, &results);
        (answer.await, agent)
    });
    let (answer, _agent) = sent;
    let log = || std::fs::read_to_string(dir.path().join("agent.log")).unwrap_or_default();
    let r = answer.unwrap().unwrap();
    eprintln!(
        "first result after {:?} (murano-agent start included)",
        start.elapsed()
    );
    assert_eq!(
        interpret("wire vm", &r).unwrap_or_else(|e| panic!("{e}\n{}", log())),
        json!("deployed for vetro 9")
    );
    // Format 2.1.0, then a failing script: murano-agent's error code and
    // stderr reach the engine's error.
    let t = Instant::now();
    let r = rt
        .block_on(bus.call(
            &call,
            &build_agent_plan(template("2.1.0", "deploy.sh"), &scripts).unwrap(),
        ))
        .unwrap()
        .unwrap();
    eprintln!("a round trip through murano-agent: {:?}", t.elapsed());
    assert_eq!(
        interpret("wire vm", &r).unwrap(),
        json!("deployed for vetro 9")
    );
    let r = rt
        .block_on(bus.call(
            &call,
            &build_agent_plan(template("2.0.0", "fail.sh"), &scripts).unwrap(),
        ))
        .unwrap()
        .unwrap();
    let e = interpret("wire vm", &r).unwrap_err();
    assert!(
        e.starts_with("the agent of wire vm answered error 100"),
        "{e}"
    );
    assert!(e.contains("(exit code 7); stderr: no such package"), "{e}");
}
