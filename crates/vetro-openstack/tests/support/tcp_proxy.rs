//! A TCP proxy for fault tests (included with `#[path]`): it forwards to a
//! real service and can drop the connections it carries, close the next few
//! new ones at once (a restarting service, a broken network), answer the next
//! few HTTP requests 503 itself (an overloaded service behind a balancer), or
//! hold each new connection a while before forwarding it (a slow service).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub struct Proxy {
    pub port: u16,
    open: Arc<Mutex<Vec<TcpStream>>>,
    refuse: Arc<AtomicUsize>,
    unavailable: Arc<AtomicUsize>,
    delay_ms: Arc<AtomicUsize>,
    /// Connections accepted so far (closed ones too).
    pub accepted: Arc<AtomicUsize>,
}

impl Proxy {
    /// Listen on a free loopback port and forward to `upstream` (`host:port`).
    pub fn start(upstream: &str) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let refuse = Arc::new(AtomicUsize::new(0));
        let accepted = Arc::new(AtomicUsize::new(0));
        let unavailable = Arc::new(AtomicUsize::new(0));
        let delay_ms = Arc::new(AtomicUsize::new(0));
        let (o, r, a, up) = (
            open.clone(),
            refuse.clone(),
            accepted.clone(),
            upstream.to_string(),
        );
        let (u, d) = (unavailable.clone(), delay_ms.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                a.fetch_add(1, Ordering::SeqCst);
                if take_one(&r) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                if take_one(&u) {
                    std::thread::spawn(move || answer_503(client));
                    continue;
                }
                let (o, up, wait) = (o.clone(), up.clone(), d.load(Ordering::SeqCst));
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_millis(wait as u64));
                    let Ok(server) = TcpStream::connect(&up) else {
                        return;
                    };
                    let mut list = o.lock().unwrap();
                    list.push(client.try_clone().unwrap());
                    list.push(server.try_clone().unwrap());
                    pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                    pipe(server, client);
                });
            }
        });
        Proxy {
            port,
            open,
            refuse,
            unavailable,
            delay_ms,
            accepted,
        }
    }

    /// Answer the next `n` new connections' requests with 503 (HTTP).
    pub fn unavailable_next(&self, n: usize) {
        self.unavailable.store(n, Ordering::SeqCst);
    }

    /// Hold each new connection this long before forwarding it.
    pub fn delay(&self, d: std::time::Duration) {
        self.delay_ms
            .store(d.as_millis() as usize, Ordering::SeqCst);
    }

    /// Drop every connection the proxy carries now (new ones are accepted).
    pub fn cut(&self) {
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Close the next `n` new connections as soon as they are accepted.
    pub fn refuse_next(&self, n: usize) {
        self.refuse.store(n, Ordering::SeqCst);
    }
}

/// Take one from a counter of connections to treat specially.
fn take_one(n: &AtomicUsize) -> bool {
    n.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// Read a request's head and answer 503, as a balancer with no backend does.
fn answer_503(mut client: TcpStream) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match client.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let body = r#"{"code": 503, "title": "Service Unavailable", "explanation": "no server is available (test proxy)"}"#;
    let _ = write!(
        client,
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.shutdown(Shutdown::Both);
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Write);
    });
}
