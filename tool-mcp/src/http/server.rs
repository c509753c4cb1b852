//! Streamable HTTP, mounted at `/mcp` on axum, with authentication, the ops endpoints
//! (`/healthz`, `/readyz`, `/metrics`) and a graceful drain.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

#[cfg(feature = "auth")]
use axum::http::Uri;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use axum::serve::{Listener, ListenerExt};
use tokio::net::{TcpListener, TcpStream};

use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::store::SessionStore;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "auth")]
use crate::auth::middleware::{self as auth, AuthState};
use crate::error::ServeError;
use crate::http::conn;
use crate::http::guard::{self as guard, PostLimits, SessionKnown};
use crate::http::listen::ListenShares;
use crate::http::ops::{self, Ops};
use crate::http::options::HttpOptions;
use crate::http::pool::{ConnectionLimits, Pool};
use crate::http::sessions::{self, LimitedSessionManager, SessionLimits};
use crate::in_flight::InFlight;
#[cfg(feature = "auth")]
use crate::owners::CallShares;
use crate::owners::{OwnedStore, Refusals, SessionOwners};
use crate::server::setup::McpServer;

/// How long the server may take to close its connections once told to stop, before its task
/// is ended.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// A running streamable HTTP server: MCP at `/mcp`, and `/healthz`, `/readyz`, `/metrics`
/// (feature `metrics`) and, with authentication (feature `auth`),
/// `/.well-known/oauth-protected-resource` on the same listener.
///
/// ```no_run
/// # async fn run(executor: toolwright_runtime::Executor) -> Result<(), toolwright_mcp::ServeError> {
/// use std::time::Duration;
///
/// let server = toolwright_mcp::serve_http(executor, "127.0.0.1:8080".parse().unwrap()).await?;
/// println!("MCP endpoint: {}", server.url());
/// tokio::signal::ctrl_c().await?;
/// let report = server.drain(Duration::from_secs(30)).await?;
/// println!("stopped; {} calls did not finish in time", report.unfinished_calls);
/// # Ok(())
/// # }
/// ```
pub struct HttpServer {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    ops: Arc<Ops>,
    // Read by the tests only: the regression test of TCP_NODELAY.
    #[cfg_attr(not(test), allow(dead_code))]
    accepted: Arc<AcceptedConnections>,
}

/// How a [drain](HttpServer::drain) ended.
///
/// ```no_run
/// # async fn run(server: toolwright_mcp::HttpServer) -> Result<(), toolwright_mcp::ServeError> {
/// let report = server.drain(std::time::Duration::from_secs(30)).await?;
/// println!("{} calls cut short", report.unfinished_calls);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DrainReport {
    /// Tool calls still running at the deadline (they were cancelled).
    pub unfinished_calls: usize,
    /// Requests to `/mcp` still being answered at the deadline.
    pub unfinished_requests: usize,
}

impl DrainReport {
    /// Whether everything in flight finished before the deadline.
    ///
    /// ```
    /// # async fn run(server: toolwright_mcp::HttpServer) -> Result<(), toolwright_mcp::ServeError> {
    /// let report = server.drain(std::time::Duration::from_secs(30)).await?;
    /// if !report.is_clean() {
    ///     eprintln!("{} calls were cut short", report.unfinished_calls);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn is_clean(&self) -> bool {
        self.unfinished_calls == 0 && self.unfinished_requests == 0
    }
}

/// Counts of accepted connections, read back from the sockets themselves (so a test can
/// tell that `TCP_NODELAY` really is on, without measuring latency).
#[derive(Debug, Default)]
struct AcceptedConnections {
    total: AtomicU64,
    with_nodelay: AtomicU64,
}

/// Wraps a TCP listener so that every accepted connection has `TCP_NODELAY` set.
///
/// A streamable HTTP response is written in several small pieces (the SSE priming event,
/// the message, the end of the chunked body). With Nagle's algorithm on, the last piece
/// waits for the client's delayed ACK, about 40 ms on Linux, on every call of a keep-alive
/// connection. `axum::serve` does not set `TCP_NODELAY`; [`serve_http`](crate::serve_http)
/// does, and so should anyone who mounts [`McpServer`] on their own axum router:
///
/// ```no_run
/// # async fn run(router: axum::Router) -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(toolwright_mcp::nodelay_listener(listener), router).await
/// # }
/// ```
pub fn nodelay_listener(listener: TcpListener) -> impl Listener<Io = TcpStream, Addr = SocketAddr> {
    listener.tap_io(|stream: &mut TcpStream| set_nodelay(stream))
}

fn set_nodelay(stream: &TcpStream) {
    if let Err(error) = stream.set_nodelay(true) {
        // The connection still works, only slower for keep-alive clients.
        tracing::warn!(%error, "could not set TCP_NODELAY on an accepted connection");
    }
}

impl HttpServer {
    pub(crate) async fn start(
        server: McpServer,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<Self, ServeError> {
        let loopback = addr.ip().is_loopback();
        if !authenticates(&options)? {
            if !loopback && !options.insecure_no_auth {
                return Err(ServeError::Config(format!(
                    "refusing to serve {addr} without authentication: anyone who can reach it \
                     could call the tools; {NO_AUTH_HINT}, or allow it knowingly with \
                     HttpOptions::insecure_no_auth(true)"
                )));
            }
            if !loopback {
                tracing::warn!(%addr, "serving MCP without authentication on a non-loopback address");
            }
        }

        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        #[cfg(feature = "auth")]
        let resource = options
            .resource_url
            .clone()
            .unwrap_or_else(|| format!("http://{local_addr}"));
        #[cfg(feature = "auth")]
        let metadata_url = metadata_url(&resource)?;

        let mut allowed_hosts = options.allowed_hosts.clone();
        if !loopback {
            allowed_hosts.push(addr.ip().to_string());
        }
        let mut allowed_origins = options.allowed_origins.clone();
        if loopback {
            allowed_origins.extend(own_loopback_origins(local_addr.port()));
        }
        // The ops endpoints answer the same hosts and origins as `/mcp`: a web page that
        // rebinds its name to this address must not read them.
        let ops_hosts = Arc::new(ops::HostCheck::new(
            allowed_hosts.clone(),
            allowed_origins.clone(),
        ));
        let shutdown = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default()
            .with_cancellation_token(shutdown.child_token())
            .with_sse_keep_alive(Some(Duration::from_secs(15)))
            .with_allowed_hosts(allowed_hosts)
            .with_allowed_origins(allowed_origins)
            .enforce_origin_validation()
            .with_max_request_body_bytes(options.max_request_body_bytes)
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.stateless);
        // The store keeps each session's owner with it, so every replica checks it.
        let store = options
            .session_store
            .clone()
            .map(|store| Arc::new(OwnedStore::new(store)));
        config.session_store = store.clone().map(|store| store as Arc<dyn SessionStore>);

        let refusals = Arc::new(Refusals::default());
        #[cfg(feature = "auth")]
        let owners = Arc::new(SessionOwners::new(store.clone()));
        #[cfg(not(feature = "auth"))]
        let owners = Arc::new(SessionOwners::default());
        let mut local = LocalSessionManager::default();
        local.session_config.keep_alive = Some(options.session_idle);
        let sessions = Arc::new(LimitedSessionManager::new(
            local,
            options.max_sessions,
            options.max_sessions_per_principal,
            options.max_sessions_per_address,
            Arc::clone(&owners),
            Arc::clone(&refusals),
        ));
        // The pools a caller could fill, each with a share per caller.
        let pool = Arc::new(Pool::new(
            ConnectionLimits {
                max_connections: options.max_connections,
                max_per_address: options.max_connections_per_address,
                max_per_principal: options.max_connections_per_principal,
                header_read_timeout: options.header_read_timeout,
                idle_timeout: options.connection_idle,
            },
            Arc::clone(&refusals),
        ));
        let listens = Arc::new(ListenShares::new(
            options.max_listen_streams_per_principal,
            Arc::clone(&refusals),
        ));
        let ops = Arc::new(Ops {
            draining: AtomicBool::new(false),
            requests: InFlight::default(),
            calls: server.calls.clone(),
            sessions: Arc::clone(&sessions),
            #[cfg(feature = "metrics")]
            metrics: options
                .metrics
                .clone()
                .unwrap_or_else(|| Arc::new(crate::http::metrics::PrometheusMetrics::new())),
            #[cfg(feature = "metrics")]
            executor: server.executor().clone(),
            max_body: options.max_request_body_bytes,
            sources: options.status_sources.clone(),
            #[cfg(feature = "metrics")]
            refusals: Arc::clone(&refusals),
            #[cfg(feature = "metrics")]
            limit_refusals: Arc::clone(&server.refused),
            #[cfg(feature = "metrics")]
            pool: Arc::clone(&pool),
            #[cfg(feature = "metrics")]
            listens: Arc::clone(&listens),
        });

        let stateless = options.stateless;
        let service: StreamableHttpService<McpServer, LimitedSessionManager> =
            StreamableHttpService::new(
                move || {
                    Ok(if stateless {
                        server.for_stateless_request()
                    } else {
                        server.for_session()
                    })
                },
                Arc::clone(&sessions),
                config,
            );
        // Innermost first: the JSON-RPC checks run after authentication (below), so an
        // anonymous client cannot make the server parse bodies.
        let post_limits = Arc::new(PostLimits {
            max_body: options.max_request_body_bytes,
            body_timeout: options.body_read_timeout,
            listens,
            refusals: Arc::clone(&refusals),
        });
        let known = session_known(
            Arc::clone(&sessions),
            store.map(|store| store as Arc<dyn SessionStore>),
        );
        let limits = SessionLimits {
            max: options.max_sessions,
            max_per_principal: options.max_sessions_per_principal,
            max_per_address: options.max_sessions_per_address,
        };
        #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
        let mut mcp = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(from_fn_with_state(limits, sessions::limit_answers))
            .layer(from_fn_with_state(post_limits, guard::check_post))
            .layer(from_fn_with_state(known, guard::check_delete));
        let router = axum::Router::new()
            .route("/healthz", get(ops::healthz))
            .route("/readyz", get(ops::readyz));
        #[cfg(feature = "metrics")]
        let router = router.route("/metrics", get(crate::http::ops::metrics));
        let router = router.layer(from_fn_with_state(ops_hosts, ops::check_host));
        #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
        let mut router = router.with_state(Arc::clone(&ops));
        #[cfg(feature = "auth")]
        if let Some(auth) = options.auth.clone() {
            let state = Arc::new(AuthState {
                config: auth,
                resource: resource.clone(),
                metadata_url: metadata_url.clone(),
                owners,
                calls: Arc::new(CallShares::new(
                    options.max_calls_per_principal,
                    Arc::clone(&refusals),
                )),
            });
            // Inside authentication: each request's connection counts against its caller.
            mcp = mcp
                .layer(axum::middleware::from_fn(conn::attribute))
                .layer(from_fn_with_state(Arc::clone(&state), auth::authenticate));
            let mut paths = vec!["/.well-known/oauth-protected-resource".to_owned()];
            let suffix = resource_path(&resource);
            if !suffix.is_empty() {
                paths.push(format!("/.well-known/oauth-protected-resource{suffix}"));
            }
            let mut metadata = axum::Router::new();
            for path in paths {
                metadata = metadata.route(&path, get(auth::metadata));
            }
            router = router.merge(metadata.with_state(state));
        }
        let mcp = mcp.layer(from_fn_with_state(Arc::clone(&ops), ops::gate));
        let router = router.merge(mcp);

        let accepted = Arc::new(AcceptedConnections::default());
        let counts = Arc::clone(&accepted);
        let tap = move |stream: &TcpStream| {
            set_nodelay(stream);
            counts.total.fetch_add(1, Ordering::Relaxed);
            if stream.nodelay().unwrap_or(false) {
                counts.with_nodelay.fetch_add(1, Ordering::Relaxed);
            }
        };
        let task = tokio::spawn(conn::serve(listener, router, pool, shutdown.clone(), tap));
        tracing::info!(%local_addr, "MCP server listening on http://{local_addr}/mcp");
        Ok(HttpServer {
            local_addr,
            shutdown,
            task,
            ops,
            accepted,
        })
    }

    /// The address the server listens on.
    ///
    /// ```no_run
    /// # fn run(server: &toolwright_mcp::HttpServer) {
    /// println!("health: http://{}/healthz", server.local_addr());
    /// # }
    /// ```
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint, `http://{addr}/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.local_addr)
    }

    /// Sessions open now.
    ///
    /// ```no_run
    /// # fn run(server: &toolwright_mcp::HttpServer) {
    /// println!("{} sessions", server.open_sessions());
    /// # }
    /// ```
    pub fn open_sessions(&self) -> usize {
        self.ops.sessions.open_sessions()
    }

    /// Tool calls running now.
    ///
    /// ```no_run
    /// # fn run(server: &toolwright_mcp::HttpServer) {
    /// println!("{} calls running", server.calls_in_flight());
    /// # }
    /// ```
    pub fn calls_in_flight(&self) -> usize {
        self.ops.calls.count()
    }

    /// Whether the server is draining (see [`drain`](Self::drain)).
    ///
    /// ```no_run
    /// # fn run(server: &toolwright_mcp::HttpServer) {
    /// assert!(!server.is_draining());
    /// # }
    /// ```
    pub fn is_draining(&self) -> bool {
        self.ops.is_draining()
    }

    /// Stops at once: stops accepting connections and ends every session; calls in flight
    /// are cancelled. [`drain`](Self::drain) lets them finish first.
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }

    /// Stops gracefully. As soon as this is called (before the future is polled), new
    /// requests to `/mcp` get `503` and `/readyz` answers `503`, so a load balancer sends
    /// traffic elsewhere; what existing sessions need to finish their calls still passes
    /// (answers to approval requests, cancellations, closing a session). The future waits
    /// until every tool call and request in flight has finished, or `deadline` has passed
    /// (then they are cancelled), and then shuts the server down.
    ///
    /// ```no_run
    /// # async fn run(server: toolwright_mcp::HttpServer) -> Result<(), toolwright_mcp::ServeError> {
    /// let report = server.drain(std::time::Duration::from_secs(30)).await?;
    /// assert!(report.is_clean());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// When the server had failed.
    pub fn drain(
        self,
        deadline: Duration,
    ) -> impl Future<Output = Result<DrainReport, ServeError>> + Send + 'static {
        self.ops.draining.store(true, Ordering::SeqCst);
        tracing::info!(
            calls = self.ops.calls.count(),
            requests = self.ops.requests.count(),
            "draining: new requests are refused; waiting for the calls in flight"
        );
        async move {
            let finished = tokio::time::timeout(deadline, self.ops.idle())
                .await
                .is_ok();
            let report = if finished {
                DrainReport {
                    unfinished_calls: 0,
                    unfinished_requests: 0,
                }
            } else {
                let report = DrainReport {
                    unfinished_calls: self.ops.calls.count(),
                    unfinished_requests: self.ops.requests.count(),
                };
                tracing::warn!(
                    calls = report.unfinished_calls,
                    requests = report.unfinished_requests,
                    "the drain deadline passed; cancelling what is still running"
                );
                report
            };
            self.shutdown.cancel();
            let mut task = self.task;
            match tokio::time::timeout(SHUTDOWN_GRACE, &mut task).await {
                Ok(joined) => joined_result(joined)?,
                Err(_) => {
                    tracing::warn!("connections did not close in time; closing them");
                    task.abort();
                }
            }
            tracing::info!("drained and stopped");
            Ok(report)
        }
    }

    /// Waits until the server stops (after [`shutdown`](Self::shutdown), or on an error).
    ///
    /// # Errors
    ///
    /// When the server failed.
    pub async fn wait(self) -> Result<(), ServeError> {
        joined_result(self.task.await)
    }
}

/// What to do to serve others than this machine, in the error that refuses it.
#[cfg(feature = "auth")]
const NO_AUTH_HINT: &str = "configure HttpOptions::auth (static tokens or JWTs)";
#[cfg(not(feature = "auth"))]
const NO_AUTH_HINT: &str = "turn on toolwright-mcp's `auth` feature and configure HttpOptions::auth (static tokens or JWTs)";

/// Whether the server authenticates requests as `options` say.
///
/// # Errors
///
/// Authentication that accepts no token.
#[cfg(feature = "auth")]
fn authenticates(options: &HttpOptions) -> Result<bool, ServeError> {
    match &options.auth {
        Some(auth) if auth.is_empty() => Err(ServeError::Config(
            "authentication is on but accepts no token: add static tokens or a JWT \
             configuration to the AuthConfig"
                .to_owned(),
        )),
        Some(_) => Ok(true),
        None => Ok(false),
    }
}

/// Whether the server authenticates requests: not without the `auth` feature.
#[cfg(not(feature = "auth"))]
#[allow(clippy::unnecessary_wraps)] // the signature of the `auth` build
fn authenticates(_options: &HttpOptions) -> Result<bool, ServeError> {
    Ok(false)
}

fn joined_result(
    joined: Result<std::io::Result<()>, tokio::task::JoinError>,
) -> Result<(), ServeError> {
    match joined {
        Ok(result) => result.map_err(ServeError::Io),
        Err(error) => Err(ServeError::Protocol(format!(
            "the server task failed: {error}"
        ))),
    }
}

/// The path of the resource URL, without a trailing slash (`""` for none).
#[cfg(feature = "auth")]
fn resource_path(resource: &str) -> String {
    resource
        .parse::<Uri>()
        .ok()
        .map(|uri| uri.path().trim_end_matches('/').to_owned())
        .unwrap_or_default()
}

/// The origins of a server on a loopback address itself (`http://127.0.0.1:PORT`,
/// `http://localhost:PORT`, `http://[::1]:PORT`): a request from one is same-origin, and is
/// accepted like a request without `Origin`. A DNS-rebinding page comes with its own origin
/// (`http://evil.example`), and other local origins (another port) stay refused; the `Host`
/// check applies as before. The MCP conformance suite's `dns-rebinding-protection` scenario
/// sends the server's own `Host` and `Origin` and expects `2xx`.
fn own_loopback_origins(port: u16) -> [String; 3] {
    [
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ]
}

/// Where the protected resource metadata of `resource` is, by RFC 9728: the well-known path
/// between the origin and the resource's path.
#[cfg(feature = "auth")]
fn metadata_url(resource: &str) -> Result<String, ServeError> {
    let uri: Uri = resource.parse().map_err(|error| {
        ServeError::Config(format!(
            "the resource URL `{resource}` is not a URL ({error}); give the public URL clients \
             reach the server at, such as https://tools.example.com"
        ))
    })?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(ServeError::Config(format!(
            "the resource URL `{resource}` needs a scheme and a host, such as \
             https://tools.example.com"
        )));
    };
    Ok(format!(
        "{scheme}://{authority}/.well-known/oauth-protected-resource{}",
        resource_path(resource)
    ))
}

/// Whether a session is open here or, with a shared store, open anywhere.
fn session_known(
    sessions: Arc<LimitedSessionManager>,
    store: Option<Arc<dyn SessionStore>>,
) -> SessionKnown {
    Arc::new(move |id: String| {
        let sessions = Arc::clone(&sessions);
        let store = store.clone();
        Box::pin(async move {
            let session_id: SessionId = id.clone().into();
            if sessions.has_session(&session_id).await.unwrap_or(false) {
                return true;
            }
            match store {
                // A store that cannot be read: let rmcp answer as it would.
                Some(store) => store.load(&id).await.map_or(true, |state| state.is_some()),
                None => false,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// Accepted sockets have `TCP_NODELAY`, read back with `getsockopt` on the server side.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn accepted_connections_have_nodelay() {
        let registry = toolwright_runtime::ToolRegistry::new();
        let executor = toolwright_runtime::Executor::builder(Arc::new(registry)).build();
        let server = HttpServer::start(
            McpServer::new(executor),
            "127.0.0.1:0".parse().unwrap(),
            HttpOptions::new(),
        )
        .await
        .unwrap();
        let addr = server.local_addr();
        // Three connections, each answered, so each was accepted (and tapped) first.
        let answers = tokio::task::spawn_blocking(move || {
            (0..3)
                .map(|_| {
                    let mut stream = std::net::TcpStream::connect(addr).unwrap();
                    stream
                        .write_all(
                            b"GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                        )
                        .unwrap();
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer).unwrap();
                    answer
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap();
        assert!(answers.iter().all(|answer| answer.starts_with("HTTP/1.1 ")));
        assert_eq!(server.accepted.total.load(Ordering::Relaxed), 3);
        assert_eq!(server.accepted.with_nodelay.load(Ordering::Relaxed), 3);
        server.shutdown();
        server.wait().await.unwrap();
    }

    #[test]
    #[cfg(feature = "auth")]
    fn metadata_urls_follow_rfc_9728() {
        assert_eq!(
            metadata_url("https://tools.example.com").unwrap(),
            "https://tools.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_url("https://example.com:8443/team/mcp").unwrap(),
            "https://example.com:8443/.well-known/oauth-protected-resource/team/mcp"
        );
        let error = metadata_url("tools.example.com").unwrap_err();
        assert!(
            error.to_string().contains("needs a scheme and a host"),
            "{error}"
        );
    }

    /// The public helper sets it too.
    #[tokio::test]
    async fn nodelay_listener_sets_the_option() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = nodelay_listener(listener);
        let client = tokio::spawn(async move { TcpStream::connect(addr).await.unwrap() });
        let (stream, _) = listener.accept().await;
        assert!(stream.nodelay().unwrap());
        drop(client.await.unwrap());
    }
}
