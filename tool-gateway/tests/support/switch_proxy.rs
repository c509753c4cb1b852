//! An HTTP proxy in front of an HTTP upstream whose target the test switches: the gateway
//! keeps its connections to the proxy, so an upstream's restart (switching to a new server
//! that knows no session) is seen only as that server's answers, never as a closed
//! connection the gateway's pool might reuse in the same instant. Each request is sent to
//! the current target on a fresh connection, the response streamed back as it comes (SSE
//! included).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;

/// The proxy: [`url`](Self::url) is what the gateway connects to.
pub struct SwitchProxy {
    addr: SocketAddr,
    target: Arc<Mutex<String>>,
}

impl SwitchProxy {
    /// Proxies to `target`, an `http://IP:PORT` origin.
    pub async fn start(target: &str) -> SwitchProxy {
        let target = Arc::new(Mutex::new(target.trim_end_matches('/').to_owned()));
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        let app = axum::Router::new()
            .fallback(forward)
            .with_state((client, target.clone()));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        SwitchProxy { addr, target }
    }

    /// The MCP URL through the proxy.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Sends the next requests to `target` (an `http://IP:PORT` origin).
    pub fn switch(&self, target: &str) {
        *self.target.lock().unwrap() = target.trim_end_matches('/').to_owned();
    }
}

async fn forward(
    State((client, target)): State<(reqwest::Client, Arc<Mutex<String>>)>,
    request: Request,
) -> Response {
    let origin = target.lock().unwrap().clone();
    let (parts, body) = request.into_parts();
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_owned();
    let body = match axum::body::to_bytes(body, 64 << 20).await {
        Ok(body) => body,
        Err(_) => return status(400),
    };
    let mut outgoing = client.request(parts.method, format!("{origin}{path}"));
    for (name, value) in &parts.headers {
        if name != "host" && name != "content-length" && name != "connection" {
            outgoing = outgoing.header(name, value);
        }
    }
    let Ok(answer) = outgoing.body(body).send().await else {
        return status(502);
    };
    let mut response = Response::builder().status(answer.status().as_u16());
    for (name, value) in answer.headers() {
        if name != "content-length" && name != "transfer-encoding" && name != "connection" {
            response = response.header(name, value);
        }
    }
    response
        .body(Body::from_stream(answer.bytes_stream()))
        .unwrap_or_else(|_| status(502))
}

fn status(code: u16) -> Response {
    Response::builder()
        .status(code)
        .body(Body::empty())
        .unwrap()
}
