//! A TCP proxy for fault tests (included with `#[path]`): it forwards to a
//! real service and can drop the connections it carries, or close the next
//! few new ones at once, the way a restarting service or a broken network
//! does.

use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

pub struct Proxy {
    pub port: u16,
    open: Arc<Mutex<Vec<TcpStream>>>,
    refuse: Arc<AtomicUsize>,
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
        let (o, r, a, up) = (
            open.clone(),
            refuse.clone(),
            accepted.clone(),
            upstream.to_string(),
        );
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                a.fetch_add(1, Ordering::SeqCst);
                let refused = r
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                    .is_ok();
                if refused {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&up) else {
                    continue;
                };
                let mut list = o.lock().unwrap();
                list.push(client.try_clone().unwrap());
                list.push(server.try_clone().unwrap());
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        Proxy {
            port,
            open,
            refuse,
            accepted,
        }
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

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Write);
    });
}
