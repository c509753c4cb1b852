//! What operators and load balancers see: `/healthz`, `/readyz` (and `/metrics`, in
//! `metrics`), and the gate that drains the server (new requests refused, requests in flight
//! counted).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, RETRY_AFTER};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use crate::in_flight::{InFlight, InFlightGuard};
use crate::jsonrpc::Incoming;
use crate::sessions::LimitedSessionManager;

/// What the ops endpoints and the drain gate share.
pub(crate) struct Ops {
    pub(crate) draining: AtomicBool,
    /// POST requests to `/mcp` whose answer is not fully sent.
    pub(crate) requests: InFlight,
    /// Tool calls running in [`McpServer`](crate::McpServer).
    pub(crate) calls: InFlight,
    pub(crate) sessions: Arc<LimitedSessionManager>,
    /// The histograms `/metrics` shows, and the executor whose counters it shows.
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Arc<crate::PrometheusMetrics>,
    #[cfg(feature = "metrics")]
    pub(crate) executor: toolwright_runtime::Executor,
    pub(crate) max_body: usize,
    /// Requests and connections refused by a limit.
    #[cfg(feature = "metrics")]
    pub(crate) refusals: Arc<crate::owners::Refusals>,
    /// Approvals, tasks and request states refused to callers by a limit (the server's).
    #[cfg(feature = "metrics")]
    pub(crate) limit_refusals: Arc<crate::refused::LimitRefusals>,
}

impl Ops {
    pub(crate) fn is_draining(&self) -> bool {
        self.draining.load(Ordering::SeqCst)
    }

    /// Returns once no request and no tool call is in progress.
    pub(crate) async fn idle(&self) {
        loop {
            self.requests.idle().await;
            self.calls.idle().await;
            if self.requests.count() == 0 {
                return;
            }
        }
    }
}

/// `GET /healthz`: the process serves.
pub(crate) async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /readyz`: whether new requests are accepted.
pub(crate) async fn readyz(State(ops): State<Arc<Ops>>) -> Response {
    if ops.is_draining() {
        (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response()
    } else {
        "ready\n".into_response()
    }
}

/// The middleware in front of `/mcp` (outermost): counts POST requests until their answer is
/// sent, and while draining refuses new work with `503`. What an existing session still needs
/// to finish its calls passes: answers to the server's own requests (an approval through
/// elicitation), notifications (a cancellation), and closing the session.
pub(crate) async fn gate(State(ops): State<Arc<Ops>>, request: Request, next: Next) -> Response {
    // Counted before the draining check, so a drain that starts in between waits for it.
    let guard = (request.method() == Method::POST).then(|| ops.requests.enter());
    let request = if ops.is_draining() {
        match finishing_work(request, ops.max_body).await {
            Ok(request) => request,
            Err(refusal) => return refusal,
        }
    } else {
        request
    };
    let response = next.run(request).await;
    match guard {
        None => response,
        Some(guard) => response.map(|body| {
            Body::new(Guarded {
                body,
                _guard: guard,
            })
        }),
    }
}

/// `request` back when it only helps work already under way finish, else the refusal.
async fn finishing_work(request: Request, max_body: usize) -> Result<Request, Response> {
    let refusal = || {
        let mut response = (
            StatusCode::SERVICE_UNAVAILABLE,
            "this MCP server is shutting down and takes no new requests; retry on another \
             instance or after it restarts\n",
        )
            .into_response();
        let headers = response.headers_mut();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("5"));
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
        response
    };
    if request.method() == Method::DELETE {
        return Ok(request);
    }
    if request.method() != Method::POST || !request.headers().contains_key("mcp-session-id") {
        return Err(refusal());
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_body).await else {
        return Err(refusal());
    };
    // A request starts work; answers and notifications (a cancellation) help finish it.
    // What is not a valid message is refused here too.
    let starts_work = !matches!(
        crate::jsonrpc::check(&bytes),
        Ok(Incoming::Other | Incoming::Cancelled { .. })
    );
    if starts_work {
        return Err(refusal());
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// A response body that holds a guard until it is sent (or dropped).
struct Guarded {
    body: Body,
    _guard: InFlightGuard,
}

impl http_body::Body for Guarded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
