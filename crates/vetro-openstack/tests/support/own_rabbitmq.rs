//! A RabbitMQ node of the test's own (Debian's `rabbitmq-server`, run as its
//! `rabbitmq` user, on free ports, its data in a temporary folder), which a
//! test may stop and start again without disturbing the broker other tests
//! share.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = "/usr/lib/rabbitmq/bin/rabbitmq-server";
const CTL: &str = "/usr/lib/rabbitmq/bin/rabbitmqctl";

pub struct Node {
    name: String,
    dir: tempfile::TempDir,
    pub port: u16,
    dist: u16,
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Runs `script` as the `rabbitmq` user (whose home holds the Erlang cookie).
fn as_rabbitmq(script: &str) -> Command {
    let mut c = Command::new("su");
    c.args(["rabbitmq", "-s", "/bin/sh", "-c"]).arg(format!(
        "cd /var/lib/rabbitmq && HOME=/var/lib/rabbitmq {script}"
    ));
    c
}

impl Node {
    /// A started node, or why there can be none here (the test then skips).
    pub fn start() -> Result<Node, String> {
        if !Path::new(SERVER).exists() {
            return Err(format!("{SERVER} is not installed"));
        }
        let root = Command::new("id")
            .arg("-u")
            .output()
            .map_err(|e| e.to_string())?;
        if String::from_utf8_lossy(&root.stdout).trim() != "0" {
            return Err("starting a RabbitMQ node of its own needs root".into());
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("enabled_plugins"), "[].\n").unwrap();
        let owned = Command::new("chown")
            .args(["-R", "rabbitmq"])
            .arg(dir.path())
            .status()
            .map_err(|e| e.to_string())?;
        if !owned.success() {
            return Err("no rabbitmq user".into());
        }
        let node = Node {
            name: format!("vetrotest{}x{}@localhost", std::process::id(), free_port()),
            dir,
            port: free_port(),
            dist: free_port(),
        };
        node.launch();
        Ok(node)
    }

    /// Starts the node and waits (up to a minute) until it takes connections.
    fn launch(&self) {
        let d = self.dir.path().display();
        let script = format!(
            "RABBITMQ_NODENAME={} RABBITMQ_NODE_PORT={} RABBITMQ_DIST_PORT={} \
             RABBITMQ_MNESIA_BASE={d}/mnesia RABBITMQ_LOG_BASE={d}/log \
             RABBITMQ_ENABLED_PLUGINS_FILE={d}/enabled_plugins exec {SERVER}",
            self.name, self.port, self.dist
        );
        // `su` ends when the node does (at `stop`); a thread waits for it.
        let mut su = as_rabbitmq(&script)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::spawn(move || su.wait());
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "RabbitMQ node {} did not start within a minute (log in {d}/log)",
                self.name
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the node (every connection drops, its queues are gone).
    pub fn stop(&self) {
        let _ = as_rabbitmq(&format!("{CTL} -n {} stop", self.name))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// Stops the node and starts it again; how long it was away.
    pub fn restart(&self) -> Duration {
        let t = Instant::now();
        self.stop();
        self.launch();
        t.elapsed()
    }

    pub fn url(&self) -> String {
        format!("amqp://guest:guest@127.0.0.1:{}/%2f", self.port)
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop();
    }
}
