//! The proxy a confined program reaches its allowed hosts through: `CONNECT` tunnels and
//! plain HTTP requests in absolute form, on a UNIX socket, on a thread of its own.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use super::Egress;
use super::rules::{effective, normal_name, special};

/// Why the proxy could not start: the program must not start either.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// Its socket could not be made at this path.
    #[error(
        "the egress proxy cannot listen on `{path}`: {source}; the program is not started \
         (check that the directory exists, is writable and its path is under 100 bytes)"
    )]
    Bind {
        /// The socket's path.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// Its thread or runtime could not be made.
    #[error("the egress proxy cannot start its thread: {0}; the program is not started")]
    Thread(io::Error),
}

/// A running proxy: it serves its socket until dropped (then the socket file is removed and
/// every connection through it closed).
///
/// ```
/// use toolwright_std::egress::{AllowList, Egress, Proxy};
///
/// let dir = tempfile::tempdir()?;
/// let proxy = Proxy::start(Egress::new(AllowList::default()), dir.path().join("proxy.sock"))?;
/// assert!(proxy.path().exists());
/// drop(proxy);
/// assert!(!dir.path().join("proxy.sock").exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Proxy {
    path: PathBuf,
    shutdown: Option<oneshot::Sender<()>>,
}

impl Proxy {
    /// Listens on a new UNIX socket at `path` and serves it on a thread of its own, by the
    /// rules of `egress`. It fails, and nothing listens, when the socket or the thread
    /// cannot be made.
    ///
    /// # Errors
    ///
    /// [`ProxyError::Bind`], [`ProxyError::Thread`].
    pub fn start(egress: Egress, path: impl Into<PathBuf>) -> Result<Proxy, ProxyError> {
        let path = path.into();
        let bind_error = |source| ProxyError::Bind {
            path: path.clone(),
            source,
        };
        let listener = std::os::unix::net::UnixListener::bind(&path).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ProxyError::Thread)?;
        let (shutdown, stopped) = oneshot::channel();
        std::thread::Builder::new()
            .name("egress-proxy".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    match UnixListener::from_std(listener) {
                        Ok(listener) => serve(listener, Arc::new(egress), stopped).await,
                        Err(error) => tracing::error!(%error, "the egress proxy cannot listen"),
                    }
                });
            })
            .map_err(ProxyError::Thread)?;
        Ok(Proxy {
            path,
            shutdown: Some(shutdown),
        })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

async fn serve(listener: UnixListener, egress: Arc<Egress>, mut stopped: oneshot::Receiver<()>) {
    let slots = Arc::new(Semaphore::new(egress.limits.max_connections));
    loop {
        let stream = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::warn!(%error, "the egress proxy could not accept a connection");
                    continue;
                }
            },
        };
        match slots.clone().try_acquire_owned() {
            Ok(permit) => {
                tokio::spawn(connection(stream, egress.clone(), permit));
            }
            Err(_) => {
                tracing::warn!(
                    program = %egress.label,
                    limit = egress.limits.max_connections,
                    "egress proxy: too many connections at once"
                );
                tokio::spawn(over_capacity(stream, egress.limits.max_connections));
            }
        }
    }
}

/// Answers a connection over the cap and closes it, without reading it.
async fn over_capacity(mut stream: UnixStream, max: usize) {
    let body = format!(
        "the egress proxy already serves {max} connections of this program (its limit \
         `max_connections`); close one and retry\n"
    );
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body.as_bytes()).await;
    let _ = stream.shutdown().await;
}

type Body = BoxBody<Bytes, hyper::Error>;

async fn connection(stream: UnixStream, egress: Arc<Egress>, permit: OwnedSemaphorePermit) {
    let permit = Arc::new(permit);
    let limits = egress.limits;
    let service = service_fn(move |request| {
        let egress = egress.clone();
        let permit = permit.clone();
        async move { Ok::<_, Infallible>(handle(request, egress, permit).await) }
    });
    let served = http1::Builder::new()
        // hyper's smallest buffer is 8 KiB.
        .max_buf_size(limits.max_header_bytes.max(8192))
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        // One request per connection: an idle connection holds no slot.
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    if let Err(error) = served.await {
        tracing::debug!(%error, "egress proxy connection ended");
    }
}

fn text(status: StatusCode, message: String) -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from(message + "\n"))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

async fn handle(
    request: Request<Incoming>,
    egress: Arc<Egress>,
    permit: Arc<OwnedSemaphorePermit>,
) -> Response<Body> {
    let connect = request.method() == Method::CONNECT;
    let Some(authority) = request.uri().authority().cloned() else {
        return text(
            StatusCode::BAD_REQUEST,
            "this is a proxy: send `CONNECT host:port`, or a request with an absolute \
             `http://` URL"
                .to_owned(),
        );
    };
    let port = match (authority.port_u16(), connect, request.uri().scheme_str()) {
        (Some(port), _, _) => port,
        (None, false, Some("http")) => 80,
        (None, true, _) => {
            return text(
                StatusCode::BAD_REQUEST,
                "`CONNECT` needs `host:port`".to_owned(),
            );
        }
        _ => {
            return text(
                StatusCode::BAD_REQUEST,
                "only `http://` URLs are proxied in the clear; for HTTPS, `CONNECT host:443`"
                    .to_owned(),
            );
        }
    };
    if !connect && request.uri().scheme_str() != Some("http") {
        return text(
            StatusCode::BAD_REQUEST,
            "only `http://` URLs are proxied in the clear; for HTTPS, `CONNECT host:443`"
                .to_owned(),
        );
    }
    let host = authority.host();
    let target = format!("{host}:{port}");
    let addresses = match decide(&egress, host, port).await {
        Ok(addresses) => addresses,
        Err(reason) => {
            let refusal = egress.refuse(&target, reason);
            return text(
                StatusCode::FORBIDDEN,
                format!("the egress proxy refused {target}: {}", refusal.reason),
            );
        }
    };
    let upstream = match open(&addresses, egress.limits.connect_timeout).await {
        Ok(upstream) => upstream,
        Err(error) => {
            return text(
                StatusCode::BAD_GATEWAY,
                format!("cannot connect to {target}: {error}"),
            );
        }
    };
    let idle = egress.limits.idle_timeout;
    if connect {
        tokio::spawn(async move {
            if let Ok(upgraded) = hyper::upgrade::on(request).await {
                tunnel(TokioIo::new(upgraded), upstream, idle).await;
            }
            drop(permit);
        });
        return Response::new(
            Full::new(Bytes::new())
                .map_err(|never| match never {})
                .boxed(),
        );
    }
    forward(request, upstream, idle)
        .await
        .unwrap_or_else(|message| text(StatusCode::BAD_GATEWAY, message))
}

/// The addresses `host:port` may be reached at, each checked; or why it may not. A name
/// is resolved once, here: the connection goes to one of these addresses, never to a
/// second answer.
async fn decide(egress: &Egress, host: &str, port: u16) -> Result<Vec<SocketAddr>, String> {
    let bare = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        if egress.allowed.allows_address(ip, port) {
            return Ok(vec![SocketAddr::new(effective(ip), port)]);
        }
        return Err(match special(ip) {
            Some((_, what)) => format!("{ip} is {what}, and the allow-list does not name it"),
            None => format!("{ip}:{port} is not in the allow-list"),
        });
    }
    let Some(name) = normal_name(bare) else {
        return Err(format!("`{bare}` is not a host name"));
    };
    if !egress.allowed.allows_name(&name, port) {
        return Err(format!("`{name}:{port}` is not in the allow-list"));
    }
    let found = egress
        .resolver
        .resolve(&name)
        .await
        .map_err(|error| format!("`{name}` does not resolve: {error}"))?;
    if found.is_empty() {
        return Err(format!("`{name}` has no address"));
    }
    // One refused answer refuses the name: a name that mixes a public address with a
    // private one is a rebinding attempt, not a host to pick from.
    if let Some(ip) = found
        .iter()
        .find(|ip| !egress.allowed.allows_resolved(**ip, port))
    {
        let what = special(*ip).map_or("not allowed", |(_, what)| what);
        return Err(format!(
            "`{name}` resolves to {ip}, which is {what}, and the allow-list does not name it"
        ));
    }
    Ok(found
        .into_iter()
        .map(|ip| SocketAddr::new(effective(ip), port))
        .collect())
}

/// Connects to the first of `addresses` that answers.
async fn open(addresses: &[SocketAddr], timeout: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for address in addresses {
        match tokio::time::timeout(timeout, TcpStream::connect(address)).await {
            Ok(Ok(stream)) => {
                let _ = stream.set_nodelay(true);
                return Ok(stream);
            }
            Ok(Err(error)) => last = error,
            Err(_) => last = io::Error::new(io::ErrorKind::TimedOut, "connecting timed out"),
        }
    }
    Err(last)
}

/// Headers that belong to one hop, not passed on.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Sends a plain HTTP request on to `upstream`, in origin form.
async fn forward(
    mut request: Request<Incoming>,
    upstream: TcpStream,
    idle: Duration,
) -> Result<Response<Body>, String> {
    let path = request
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let host = request
        .uri()
        .authority()
        .map(|a| a.as_str().to_owned())
        .unwrap_or_default();
    *request.uri_mut() = path
        .parse()
        .map_err(|error| format!("the request's path is not valid: {error}"))?;
    let headers = request.headers_mut();
    for name in HOP_BY_HOP {
        headers.remove(*name);
    }
    if let Ok(value) = HeaderValue::from_str(&host) {
        headers.insert(header::HOST, value);
    }
    // The response's body too is bounded: an upstream that stops sending is dropped.
    let upstream = Idle::new(upstream, idle);
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(upstream))
        .await
        .map_err(|error| format!("the upstream's HTTP failed: {error}"))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let response = tokio::time::timeout(idle, sender.send_request(request))
        .await
        .map_err(|_| "the upstream did not answer in time".to_owned())?
        .map_err(|error| format!("the upstream's HTTP failed: {error}"))?;
    let (mut parts, body) = response.into_parts();
    for name in HOP_BY_HOP {
        if *name != "transfer-encoding" {
            parts.headers.remove(*name);
        }
    }
    Ok(Response::from_parts(parts, body.boxed()))
}

enum Step {
    Client(io::Result<usize>),
    Upstream(io::Result<usize>),
}

/// Copies bytes both ways until both sides have finished, or nothing moved for `idle`.
async fn tunnel<C>(client: C, upstream: TcpStream, idle: Duration)
where
    C: AsyncRead + AsyncWrite + Unpin,
{
    let (mut client_read, mut client_write) = tokio::io::split(client);
    let (mut upstream_read, mut upstream_write) = upstream.into_split();
    let mut from_client = vec![0u8; 16 * 1024];
    let mut from_upstream = vec![0u8; 16 * 1024];
    let (mut client_open, mut upstream_open) = (true, true);
    while client_open || upstream_open {
        let step = tokio::time::timeout(idle, async {
            tokio::select! {
                read = client_read.read(&mut from_client), if client_open => {
                    Step::Client(read)
                }
                read = upstream_read.read(&mut from_upstream), if upstream_open => {
                    Step::Upstream(read)
                }
            }
        })
        .await;
        let Ok(step) = step else { return };
        match step {
            Step::Client(Ok(n)) if n > 0 => {
                let written =
                    tokio::time::timeout(idle, upstream_write.write_all(&from_client[..n])).await;
                if !matches!(written, Ok(Ok(()))) {
                    return;
                }
            }
            Step::Client(_) => {
                client_open = false;
                let _ = upstream_write.shutdown().await;
            }
            Step::Upstream(Ok(n)) if n > 0 => {
                let written =
                    tokio::time::timeout(idle, client_write.write_all(&from_upstream[..n])).await;
                if !matches!(written, Ok(Ok(()))) {
                    return;
                }
            }
            Step::Upstream(_) => {
                upstream_open = false;
                let _ = client_write.shutdown().await;
            }
        }
    }
}

/// A stream that fails with `TimedOut` once `idle` passes without a byte read or written.
struct Idle<S> {
    inner: S,
    idle: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl<S> Idle<S> {
    fn new(inner: S, idle: Duration) -> Idle<S> {
        Idle {
            inner,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        }
    }

    /// After progress: the deadline moves. While waiting: whether it has passed.
    fn check<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Ready(result) => {
                let next = tokio::time::Instant::now() + self.idle;
                self.deadline.as_mut().reset(next);
                Poll::Ready(result)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the upstream sent nothing for the proxy's idle timeout",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Idle<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        this.check(cx, polled)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Idle<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_write(cx, data);
        this.check(cx, polled)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
