//! The accept loop: HTTP/1.1 connections under the service's [`Limits`].
//!
//! - At most `max_connections` connections are served at once; a connection
//!   past the bound gets an immediate 503 with Murano's error body and is
//!   closed, so a flood of idle sockets cannot exhaust file descriptors.
//! - A request's head must arrive within `header_timeout` of the server
//!   waiting for it. hyper starts that wait when a connection opens and
//!   again after each response, so it is also the idle keep-alive timeout:
//!   a client that sends nothing for that long is disconnected.
//! - Each frame of a request body must arrive within `body_timeout`, and the
//!   whole request, body included, within `request_timeout` (see
//!   [`crate::router`]).

use crate::error::ApiError;
use crate::state::Limits;
use axum::response::IntoResponse;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

/// Serves `app` on `listener` until `shutdown` resolves, then lets the open
/// connections finish their requests (for at most the request timeout).
pub async fn serve(
    app: Router,
    listener: TcpListener,
    limits: &Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(e) => {
                    // Out of descriptors or a transient network error:
                    // wait a little instead of spinning on it.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                let (app, stop) = (app.clone(), stop_rx.clone());
                let header_timeout = limits.header_timeout;
                tokio::spawn(async move {
                    connection(stream, app, header_timeout, stop).await;
                    drop(slot);
                });
            }
            Err(_) => {
                tokio::spawn(refuse(stream));
            }
        }
    }
    let _ = stop_tx.send(true);
    // Every slot back means every connection has ended.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(limits.request_timeout, slots.acquire_many(all)).await;
    Ok(())
}

async fn connection(
    stream: TcpStream,
    app: Router,
    header_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let conn = http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app));
    let mut conn = std::pin::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stop.wait_for(|s| *s) => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}

/// Answers a connection past the bound with 503 and closes it.
async fn refuse(mut stream: TcpStream) {
    let body = axum::body::to_bytes(
        ApiError::unavailable("the server has too many open connections; try again")
            .into_response()
            .into_body(),
        64 * 1024,
    )
    .await
    .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let write = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(&body).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
}
