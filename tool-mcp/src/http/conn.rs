//! The HTTP server's connections: accepted under a limit, each with a header read timeout
//! and an idle timeout, and closed gracefully on shutdown.
//!
//! `axum::serve` sets no timer on hyper's connections, so hyper's header read timeout never
//! fires, and it takes connections without limit: a client that opens many connections and
//! sends half a header on each holds them forever. Here a connection over the limit gets an
//! answer at once, hyper closes a connection that does not send a whole header in time, and
//! a connection with no byte either way for the idle timeout is closed.
//!
//! Each caller's share of them is [`pool`](super::pool)'s.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::http::body::hold_until_sent;
#[cfg(feature = "auth")]
use crate::http::pool::ConnHandle;
use crate::http::pool::{BusyGuard, Conn, ConnectionLimits, MAX_REFUSING, Pool, share_address};
use crate::in_flight::InFlight;

/// The middleware (after authentication) that counts each request's connection against the
/// principal it authenticated as, and refuses the request when the principal has its share.
#[cfg(feature = "auth")]
pub(crate) async fn attribute(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let owner = request
        .extensions()
        .get::<crate::principal::Principal>()
        .map(|principal| principal.owner().to_owned());
    if let (Some(owner), Some(conn)) = (owner, request.extensions().get::<ConnHandle>())
        && let Err(refusal) = conn.attribute(&owner)
    {
        tracing::warn!(%refusal, "refused a request: the caller has its share of connections");
        return refusal.into_response();
    }
    next.run(request).await
}

/// A request body that counts as arriving until its end (or until dropped).
struct Arriving {
    body: hyper::body::Incoming,
    pending: Option<BusyGuard>,
}

impl http_body::Body for Arriving {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let frame = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(frame, Poll::Ready(None | Some(Err(_)))) || self.body.is_end_stream() {
            self.pending = None;
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// Serves `router` on `listener` until `shutdown`, then closes connections gracefully and
/// returns once they are all closed. `tap` sees each accepted connection first.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    pool: Arc<Pool>,
    shutdown: CancellationToken,
    tap: impl Fn(&TcpStream) + Send + 'static,
) -> io::Result<()> {
    let limits = pool.limits;
    let refusing = Arc::new(Semaphore::new(MAX_REFUSING));
    let tasks = InFlight::default();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
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
        let conn = match pool.admit(share_address(peer.ip())) {
            Ok(conn) => conn,
            Err(refusal) => {
                let refused = pool.refusals.refused_connections();
                // Logged at the 1st, 2nd, 4th, 8th... refusal: a flood of connections must
                // not become a flood of log lines (the count is in `/metrics`).
                if refused.is_power_of_two() {
                    tracing::warn!(
                        %refusal,
                        refused,
                        "refused a connection (refusals so far: see mcp_refusals_total in /metrics)"
                    );
                }
                answer_refusal(&stream, &refusal.raw_answer());
                // Linger a moment for what the client still sends, so that closing does not
                // reset the connection before it read the answer; past the budget, close now.
                if let Ok(refusing) = Arc::clone(&refusing).try_acquire_owned() {
                    tokio::spawn(async move {
                        linger(stream).await;
                        drop(refusing);
                    });
                }
                continue;
            }
        };
        let router = router.clone();
        let shutdown = shutdown.clone();
        let task = tasks.enter();
        tokio::spawn(async move {
            serve_connection(stream, router, limits, &conn, shutdown).await;
            drop(conn);
            drop(task);
        });
    }
    // Every connection closed.
    tasks.idle().await;
    Ok(())
}

/// Answers at once, without waiting: the answer fits the send buffer of a new connection.
/// Then ends the sending side and reads what the client already sent, so that closing the
/// socket sends a FIN after the answer rather than a reset that could discard it.
fn answer_refusal(stream: &TcpStream, answer: &[u8]) {
    if let Err(error) = stream.try_write(answer) {
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
    conn: &Conn,
    shutdown: CancellationToken,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: Arc::clone(&activity),
    });
    let inner = TowerToHyperService::new(router);
    let handle = conn.handle();
    // Each request carries its connection, and counts as busy until its answer is sent.
    let service =
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let answering = BusyGuard::new(&handle.busy, |busy| &busy.requests);
            let (mut parts, body) = request.into_parts();
            parts.extensions.insert(handle.clone());
            let body = if http_body::Body::is_end_stream(&body) {
                Body::new(body)
            } else {
                let pending = BusyGuard::new(&handle.busy, |busy| &busy.bodies);
                Body::new(Arriving {
                    body,
                    pending: Some(pending),
                })
            };
            let answer =
                hyper::service::Service::call(&inner, axum::http::Request::from_parts(parts, body));
            async move {
                let response: Response = match answer.await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                Ok::<_, Infallible>(hold_until_sent(response, answering))
            }
        });
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
            () = conn.close.cancelled() => {
                tracing::debug!("closing an HTTP connection to make room for another caller's");
                return;
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
