//! Round trips of execution plans between the engine's side and a `vetro
//! agent` process over a real RabbitMQ, and the same script run directly, to
//! tell the agent path's own time from the script's.
//!
//! usage: agent_round_trip [ROUNDS] [VETRO_BINARY]   (the broker: VETRO_TEST_AMQP_URL)
//!
//! With VETRO_BINARY, the agent is that binary's `vetro agent`; without, the
//! same agent (crate `vetro-agent`) runs in a thread of this process.
//!
//! Each round trip is timed from the engine's publish to its reading of the
//! result (queues declared and the result consumer running, as for every
//! call after an instance's first). The script is `#!/bin/sh` + `true`; its
//! own time is a fork and exec of it from this process, measured alternately.

use serde_json::json;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use vetro_agent::amqp::Broker;
use vetro_dsl::cloud::AgentCall;
use vetro_openstack::agents::AgentBus;

const SCRIPT: &str = "#!/bin/sh\ntrue\n";

enum Agent {
    Process(std::process::Child),
    Thread(
        tokio::sync::oneshot::Sender<()>,
        std::thread::JoinHandle<()>,
    ),
}

impl Agent {
    /// `vetro agent`'s code in a thread of this process.
    fn thread(conf: &std::path::Path) -> Result<Agent, String> {
        let text = std::fs::read_to_string(conf).map_err(|e| e.to_string())?;
        let config =
            vetro_agent::AgentConfig::parse(&text, "agent.conf").map_err(|e| format!("{e:?}"))?;
        let agent = vetro_agent::Agent::new(config).map_err(|e| format!("{e:?}"))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let _ = rt.block_on(agent.serve(async {
                let _ = stopped.await;
            }));
        });
        Ok(Agent::Thread(stop, thread))
    }

    fn stop(self) {
        match self {
            Agent::Process(mut child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Agent::Thread(stop, thread) => {
                let _ = stop.send(());
                let _ = thread.join();
            }
        }
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args
        .next()
        .map_or(Ok(20), |a| a.parse().map_err(|e| format!("ROUNDS: {e}")))?;
    let vetro = args.next();
    let Ok(url) = std::env::var("VETRO_TEST_AMQP_URL") else {
        println!("skipped: VETRO_TEST_AMQP_URL is not set");
        return Ok(());
    };
    let broker = Broker::from_url(&url)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let n = std::process::id();
    let (queue, results) = (
        format!("ebench{n}-hvm"),
        format!("-execution-results-bench{n}"),
    );
    let conf = dir.path().join("agent.conf");
    std::fs::write(
        &conf,
        format!(
            "[DEFAULT]\nstorage = {}\n[rabbitmq]\nhost = {}\nport = {}\nlogin = {}\npassword = {}\nvirtual_host = {}\ninput_queue = {queue}\nresult_routing_key = {results}\n",
            dir.path().join("storage").display(),
            broker.host, broker.port, broker.login, broker.password, broker.virtual_host
        ),
    )
    .map_err(|e| e.to_string())?;
    let agent = match &vetro {
        Some(bin) => Agent::Process(
            Command::new(bin)
                .args(["agent", "--config-file"])
                .arg(&conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("{bin}: {e}"))?,
        ),
        None => Agent::thread(&conf)?,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut bus = AgentBus::new(broker, None);
    let call = AgentCall {
        host: "bench vm",
        queue: &queue,
        result_queue: &results,
        timeout: Some(Duration::from_secs(60)),
    };
    let script_path = dir.path().join("direct.sh");
    std::fs::write(&script_path, SCRIPT).map_err(|e| e.to_string())?;
    let (mut trips, mut direct) = (Vec::new(), Vec::new());
    for i in 0..=rounds {
        let plan = json!({"FormatVersion": "2.0.0", "Version": "1.0.0", "Name": "bench", "ID": format!("bench-{n}-{i}"),
            "Action": "Execute", "Body": "return run().exitCode",
            "Files": {"f": {"Name": "run.sh", "BodyType": "Text", "Body": SCRIPT}},
            "Scripts": {"run": {"Type": "Application", "Version": "1.0.0", "EntryPoint": "f", "Files": [],
                                "Options": {"captureStdout": true, "captureStderr": true}}}});
        let t = Instant::now();
        let r = rt.block_on(bus.call(&call, &plan))?;
        let took = t.elapsed();
        if r.as_ref()
            .and_then(|r| r.get("ErrorCode"))
            .and_then(|c| c.as_i64())
            != Some(0)
        {
            return Err(format!("the agent failed the plan: {r:?}"));
        }
        let t = Instant::now();
        let status = Command::new("/bin/sh")
            .arg(&script_path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| e.to_string())?;
        let own = t.elapsed();
        assert!(status.status.success());
        // The first call declares the queues and starts the consumer.
        if i > 0 {
            trips.push(took);
            direct.push(own);
        }
    }
    agent.stop();
    let (trip, own) = (median(trips.clone()), median(direct));
    trips.sort();
    println!(
        "{rounds} round trips: median {} ms, min {} ms, max {} ms; the script alone: median {} ms; round trip beyond the script: median {} ms",
        ms(trip),
        ms(trips[0]),
        ms(trips[trips.len() - 1]),
        ms(own),
        ms(trip.saturating_sub(own))
    );
    Ok(())
}
