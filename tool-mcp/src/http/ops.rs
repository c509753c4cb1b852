//! What operators and load balancers see: `/healthz`, `/readyz`, `/metrics` (the text is
//! `metrics`'s), and the gate that drains the server (new requests refused, requests in flight
//! counted).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CONNECTION, RETRY_AFTER};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::body::hold_until_sent;
#[cfg(feature = "metrics")]
use crate::http::metrics::ServerGauges;
use crate::http::sessions::LimitedSessionManager;
use crate::in_flight::InFlight;
use crate::jsonrpc::Incoming;
#[cfg(feature = "metrics")]
use axum::http::header::CONTENT_TYPE;

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
    pub(crate) metrics: Arc<crate::http::metrics::PrometheusMetrics>,
    #[cfg(feature = "metrics")]
    pub(crate) executor: toolwright_runtime::Executor,
    pub(crate) max_body: usize,
    /// The embedder's parts that report on `/readyz` and `/metrics`.
    pub(crate) sources: Vec<Arc<dyn crate::status::StatusSource>>,
    /// Requests and connections refused by a limit.
    #[cfg(feature = "metrics")]
    pub(crate) refusals: Arc<crate::owners::Refusals>,
    /// Approvals, tasks and request states refused to callers by a limit (the server's).
    #[cfg(feature = "metrics")]
    pub(crate) limit_refusals: Arc<crate::refused::LimitRefusals>,
    /// The connections, for `mcp_connections_open`.
    #[cfg(feature = "metrics")]
    pub(crate) pool: Arc<crate::http::pool::Pool>,
    /// The `subscriptions/listen` streams, for `mcp_listen_streams_open`.
    #[cfg(feature = "metrics")]
    pub(crate) listens: Arc<crate::http::listen::ListenShares>,
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

/// `GET /readyz`: whether new requests are accepted: not while draining, nor while a
/// status source says it is not ready; each source's detail follows, a line each.
pub(crate) async fn readyz(State(ops): State<Arc<Ops>>) -> Response {
    if ops.is_draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    let mut ready = true;
    let mut detail = String::new();
    for source in &ops.sources {
        let readiness = source.readiness();
        ready &= readiness.is_ready();
        for line in readiness.lines() {
            detail.push_str(line);
            detail.push('\n');
        }
    }
    if ready {
        format!("ready\n{detail}").into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready\n{detail}"),
        )
            .into_response()
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
        Some(guard) => hold_until_sent(response, guard),
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

/// The `Host` and `Origin` checks of `/mcp` (rmcp's, with the same lists), for the ops
/// endpoints: answered only to the hosts the server is reached by, so a web page whose
/// name was rebound to this address (DNS rebinding) cannot read them.
pub(crate) struct HostCheck {
    /// Allowed authorities: a host, and a port when one was given. Empty: any host.
    hosts: Vec<(String, Option<u16>)>,
    /// Allowed origins: scheme, host, port (`None`: any port).
    origins: Vec<(String, String, Option<u16>)>,
}

impl HostCheck {
    pub(crate) fn new(hosts: Vec<String>, origins: Vec<String>) -> Self {
        let hosts = hosts
            .iter()
            .map(|host| host.trim())
            .filter(|host| !host.is_empty())
            .map(|host| match axum::http::uri::Authority::try_from(host) {
                Ok(authority) => (normalize_host(authority.host()), authority.port_u16()),
                Err(_) => (normalize_host(host), None),
            })
            .collect();
        let origins = origins
            .iter()
            .filter_map(|origin| {
                let origin = origin.trim();
                let (base, any_port) = match origin.strip_suffix(":*") {
                    Some(base) => (base, true),
                    None => (origin, false),
                };
                let (scheme, host, port) = parse_origin(base)?;
                Some((scheme, host, if any_port { None } else { port }))
            })
            .collect();
        HostCheck { hosts, origins }
    }

    fn host_allowed(&self, host: &str) -> bool {
        if self.hosts.is_empty() {
            return true;
        }
        let Ok(authority) = axum::http::uri::Authority::try_from(host) else {
            return false;
        };
        let (host, port) = (normalize_host(authority.host()), authority.port_u16());
        self.hosts.iter().any(|(allowed, allowed_port)| {
            *allowed == host && allowed_port.is_none_or(|p| Some(p) == port)
        })
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let Some((scheme, host, port)) = parse_origin(origin) else {
            return false;
        };
        let port = port.or(match scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        });
        self.origins.iter().any(|(a_scheme, a_host, a_port)| {
            *a_scheme == scheme && *a_host == host && a_port.is_none_or(|p| Some(p) == port)
        })
    }
}

fn normalize_host(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// `scheme://host[:port]` as scheme, host and port.
fn parse_origin(origin: &str) -> Option<(String, String, Option<u16>)> {
    let uri = axum::http::Uri::try_from(origin.trim()).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    Some((
        scheme,
        normalize_host(authority.host()),
        authority.port_u16(),
    ))
}

/// The middleware in front of the ops endpoints: `403` for a `Host` (or an `Origin`) that
/// `/mcp` would refuse.
pub(crate) async fn check_host(
    State(check): State<Arc<HostCheck>>,
    request: Request,
    next: Next,
) -> Response {
    let host = request
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|host| host.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(ToString::to_string));
    if !host.as_deref().is_some_and(|host| check.host_allowed(host)) {
        tracing::warn!(
            ?host,
            "refused an ops request: its Host is not allowed (possible DNS rebinding)"
        );
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: the Host header is not one this server answers to; add it to the \
             allowed hosts (HttpOptions::allow_host, toolwright serve --allow-host)\n",
        )
            .into_response();
    }
    if let Some(origin) = request.headers().get(axum::http::header::ORIGIN)
        && !origin
            .to_str()
            .is_ok_and(|origin| check.origin_allowed(origin))
    {
        tracing::warn!(?origin, "refused an ops request: its Origin is not allowed");
        return (
            StatusCode::FORBIDDEN,
            "Forbidden: the Origin header is not allowed; add it with HttpOptions::allow_origin \
             (toolwright serve --allow-origin)\n",
        )
            .into_response();
    }
    next.run(request).await
}

/// `GET /metrics`: Prometheus text.
#[cfg(feature = "metrics")]
pub(crate) async fn metrics(State(ops): State<Arc<Ops>>) -> Response {
    let text = ops.metrics.render_with(
        &ops.executor,
        Some(ServerGauges {
            sessions: ops.sessions.open_sessions(),
            requests: ops.requests.count(),
            connections: ops.pool.open(),
            listen_streams: ops.listens.open(),
            draining: ops.is_draining(),
            refusals: ops.refusals.snapshot(),
            limit_refusals: ops.limit_refusals.snapshot(),
        }),
        &ops.sources,
    );
    let mut response = text.into_response();
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins_are_matched_as_for_mcp() {
        let check = HostCheck::new(
            vec![
                "localhost".into(),
                "tools.example.com:8443".into(),
                "::1".into(),
            ],
            vec![
                "https://chat.example.com".into(),
                "http://localhost:*".into(),
            ],
        );
        assert!(check.host_allowed("localhost:1234"));
        assert!(check.host_allowed("LOCALHOST"));
        assert!(check.host_allowed("[::1]:80"));
        assert!(check.host_allowed("tools.example.com:8443"));
        assert!(!check.host_allowed("tools.example.com:80"));
        assert!(!check.host_allowed("evil.example.net"));
        assert!(check.origin_allowed("https://chat.example.com"));
        assert!(check.origin_allowed("http://localhost:5173"));
        assert!(!check.origin_allowed("https://evil.example.net"));
        assert!(!check.origin_allowed("null"));
        assert!(HostCheck::new(Vec::new(), Vec::new()).host_allowed("anything"));
    }
}
