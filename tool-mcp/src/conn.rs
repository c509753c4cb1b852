//! The HTTP server's connections: accepted under a limit, each with a header read timeout
//! and an idle timeout, and closed gracefully on shutdown.
//!
//! `axum::serve` sets no timer on hyper's connections, so hyper's header read timeout never
//! fires, and it takes connections without limit: a client that opens many connections and
//! sends half a header on each holds them forever. Here a connection over the limit gets
//! `503` at once, hyper closes a connection that does not send a whole header in time, and a
//! connection with no byte either way for the idle timeout is closed.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::owners::Refusals;

/// What one connection may do.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub(crate) max_connections: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
}

/// Refused connections being answered at once, at most: past it, a refused connection is
/// closed without an answer (so a flood cannot make the refusals themselves pile up).
const MAX_REFUSING: usize = 64;

/// The answer to a connection over the limit.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: text/plain; charset=utf-8\r\n\
retry-after: 5\r\n\
connection: close\r\n\
content-length: 95\r\n\
\r\n\
this MCP server has its maximum of open connections; close idle connections or try again later\n";

/// Serves `router` on `listener` until `shutdown`, then closes connections gracefully and
/// returns once they are all closed. `tap` sees each accepted connection first.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    refusals: Arc<Refusals>,
    shutdown: CancellationToken,
    tap: impl Fn(&TcpStream) + Send + 'static,
) -> io::Result<()> {
    let max = limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(max));
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                if !matches!(
                    error.kind(),
                    io::ErrorKind::ConnectionRefused
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::ConnectionReset
                ) {
                    // Out of file descriptors, say: wait a little instead of spinning.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                continue;
            }
        };
        tap(&stream);
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            let refused = refusals.connections.fetch_add(1, Ordering::Relaxed) + 1;
            // Logged at the 1st, 2nd, 4th, 8th... refusal: a flood of connections must not
            // become a flood of log lines (the count is in `/metrics`).
            if refused.is_power_of_two() {
                tracing::warn!(
                    max,
                    refused,
                    "refused a connection: the server has its maximum of open connections \
                     (refusals so far: see mcp_refusals_total in /metrics)"
                );
            }
            answer_refusal(&stream);
            // Linger a moment for what the client still sends, so that closing does not
            // reset the connection before it read the answer; past the budget, close now.
            if let Ok(refusing) = Arc::clone(&refusing).try_acquire_owned() {
                tokio::spawn(async move {
                    linger(stream).await;
                    drop(refusing);
                });
            }
            continue;
        };
        let router = router.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            serve_connection(stream, router, limits, shutdown).await;
            drop(permit);
        });
    }
    // Every slot back: every connection closed.
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
    Ok(())
}

/// Answers `503` at once, without waiting: the answer fits the send buffer of a new
/// connection. Then ends the sending side and reads what the client already sent, so that
/// closing the socket sends a FIN after the answer rather than a reset that could discard it.
fn answer_refusal(stream: &TcpStream) {
    if let Err(error) = stream.try_write(REFUSAL) {
        tracing::debug!(%error, "could not answer a refused connection");
    }
    let _ = shutdown_write(stream);
    let mut sink = [0u8; 4096];
    while matches!(stream.try_read(&mut sink), Ok(n) if n > 0) {}
}

/// Ends the sending side of `stream` (a FIN after the answer), through a duplicate of its
/// descriptor (tokio's own shutdown is async).
#[cfg(unix)]
fn shutdown_write(stream: &TcpStream) -> io::Result<()> {
    use std::os::fd::AsFd;
    let fd = stream.as_fd().try_clone_to_owned()?;
    std::net::TcpStream::from(fd).shutdown(std::net::Shutdown::Write)
}

#[cfg(not(unix))]
fn shutdown_write(_stream: &TcpStream) -> io::Result<()> {
    Ok(())
}

/// Reads (and drops) what the client sends for a moment after the refusal.
async fn linger(mut stream: TcpStream) {
    let drained = async {
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        io::Result::Ok(())
    };
    // A client that neither reads nor closes gets no more than this.
    let _ = tokio::time::timeout(Duration::from_secs(2), drained).await;
}

async fn serve_connection(
    stream: TcpStream,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: Arc::clone(&activity),
    });
    let service = TowerToHyperService::new(router);
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "an HTTP connection ended with an error");
                }
                return;
            }
            () = shutdown.cancelled(), if !closing => {
                closing = true;
                connection.as_mut().graceful_shutdown();
            }
            () = activity.idle_for(limits.idle_timeout) => {
                tracing::debug!(
                    idle = ?limits.idle_timeout,
                    "closing an HTTP connection that sent and received nothing for too long"
                );
                return;
            }
        }
    }
}

/// When a connection last read or wrote a byte.
struct Activity {
    start: Instant,
    /// Milliseconds after `start`.
    last: AtomicU64,
}

impl Activity {
    fn new() -> Self {
        Activity {
            start: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    fn touch(&self) {
        let millis = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(millis, Ordering::Relaxed);
    }

    /// Returns once nothing was read or written for `idle`.
    async fn idle_for(&self, idle: Duration) {
        loop {
            let last = self.last.load(Ordering::Relaxed);
            tokio::time::sleep_until(self.start + Duration::from_millis(last) + idle).await;
            if self.last.load(Ordering::Relaxed) == last {
                return;
            }
        }
    }
}

/// A stream that notes its activity.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(result, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(written)) if written > 0) {
            self.activity.touch();
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_says_its_length() {
        let text = std::str::from_utf8(REFUSAL).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
    }
}
