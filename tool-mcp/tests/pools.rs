//! Attack round 4, the shared HTTP pools: one caller (a token, or an address without
//! authentication) cannot take every connection with `subscriptions/listen` streams or
//! trickling bodies, every `subscriptions/listen` slot, nor read the ops endpoints through
//! a rebound host name. Each limit is scaled down through its option.
//!
//! Nothing here is asserted on durations: each wait is for an event (an answer, a closed
//! connection), with a generous deadline that fails the test instead of hanging.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::post;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, register_all_tools};

/// How long anything may take before a test gives up.
const DEADLINE: Duration = Duration::from_secs(60);

const TOKEN_A: &str = "pools-token-a-0123456789abcdef";
const TOKEN_B: &str = "pools-token-b-0123456789abcdef";

async fn start(options: HttpOptions) -> HttpServer {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    McpServer::new(executor)
        .serve_http_with(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap()
}

fn two_tokens() -> AuthConfig {
    AuthConfig::new()
        .token(TOKEN_A, ["tools:safe"])
        .unwrap()
        .token(TOKEN_B, ["tools:safe"])
        .unwrap()
}

/// A client with a connection of its own (a fresh client per stream: reqwest would put
/// requests of one client on its pooled connections).
fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(DEADLINE)
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

/// A 2026-07-28 request of `method` with `token`; the response, not yet read.
async fn send(
    web: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    id: u64,
    method: &str,
    mut params: Value,
) -> reqwest::Response {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "pools-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut request = post(web, url, &body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    tokio::time::timeout(DEADLINE, request.send())
        .await
        .expect("no answer before the deadline")
        .unwrap()
}

/// Opens a `subscriptions/listen` stream on a connection of its own and waits for its
/// acknowledgment: the stream is open on the server.
async fn listen(
    url: &str,
    token: Option<&str>,
    id: u64,
) -> Result<reqwest::Response, (StatusCode, String)> {
    let mut stream = send(
        &client(),
        url,
        token,
        id,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    )
    .await;
    if !stream.status().is_success() {
        let status = stream.status();
        return Err((status, stream.text().await.unwrap_or_default()));
    }
    let mut seen = String::new();
    while !seen.contains("notifications/subscriptions/acknowledged") {
        let chunk = tokio::time::timeout(DEADLINE, stream.chunk())
            .await
            .expect("no acknowledgment before the deadline")
            .unwrap()
            .expect("the stream ended before its acknowledgment");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    Ok(stream)
}

/// `tools/list` with `token` on a connection of its own: the status.
async fn list_tools(url: &str, token: &str) -> StatusCode {
    send(&client(), url, Some(token), 9, "tools/list", json!({}))
        .await
        .status()
}

/// Reads what the server sends on `stream` until it closes it; `None` if it does not close
/// it within the deadline.
async fn until_closed(stream: &mut TcpStream) -> Option<String> {
    let mut answer = Vec::new();
    let read = tokio::time::timeout(DEADLINE, async {
        let mut buffer = [0u8; 1024];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    read.ok()
        .map(|()| String::from_utf8_lossy(&answer).into_owned())
}

/// One complete `GET path` with `Host: host` (and `extra` header lines) on a connection of
/// its own from `from`; the whole answer.
async fn get_from(from: [u8; 4], addr: SocketAddr, path: &str, host: &str, extra: &str) -> String {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    until_closed(&mut stream)
        .await
        .expect("no answer before the deadline")
}

async fn get(addr: SocketAddr, path: &str) -> String {
    get_from([127, 0, 0, 1], addr, path, "127.0.0.1", "").await
}

fn status_line(answer: &str) -> &str {
    answer.lines().next().unwrap_or("")
}

async fn metrics(addr: SocketAddr) -> String {
    get(addr, "/metrics").await
}

/// The number a counter line of `/metrics` shows.
fn counter(text: &str, line: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(line))
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {line} in {text}"))
}

/// Sends one complete request on `stream` (kept open) and reads its whole answer, whose
/// body has a `content-length`.
async fn exchange(stream: &mut TcpStream, request: &str) -> String {
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(DEADLINE, async {
        let mut buffer = [0u8; 1024];
        loop {
            let n = stream.read(&mut buffer).await.unwrap();
            assert!(n > 0, "closed before the answer");
            answer.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&answer).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|line| {
                        line.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().to_owned())
                    })
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0);
                if body.len() >= length {
                    return text;
                }
            }
        }
    })
    .await;
    read.expect("no whole answer before the deadline")
}

/// One token holds every connection with `subscriptions/listen` streams (the server keeps
/// them alive). Before, everyone else got `503 maximum of open connections`, `/healthz` and
/// `/metrics` too; now a newcomer is served and one of the token's streams is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_of_one_token_do_not_keep_others_out() {
    const MAX: usize = 8;
    let http = start(
        HttpOptions::new()
            .auth(two_tokens())
            .max_connections(MAX)
            .max_connections_per_principal(MAX)
            .max_listen_streams_per_principal(MAX),
    )
    .await;
    let (addr, url) = (http.local_addr(), http.url());
    let mut streams = Vec::new();
    for id in 0..MAX {
        streams.push(listen(&url, Some(TOKEN_A), id as u64).await.unwrap());
    }
    // Anonymous health checks, another token and the metrics are served.
    assert_eq!(status_line(&get(addr, "/healthz").await), "HTTP/1.1 200 OK");
    assert_eq!(list_tools(&url, TOKEN_B).await, StatusCode::OK);
    let text = metrics(addr).await;
    assert!(status_line(&text) == "HTTP/1.1 200 OK", "{text}");
    assert!(
        counter(&text, "mcp_refusals_total{reason=\"evicted_connections\"}") >= 1,
        "{text}"
    );
    assert_eq!(
        counter(&text, "mcp_refusals_total{reason=\"connections\"}"),
        0,
        "{text}"
    );
    drop(streams);
    http.shutdown();
}

/// One token holds every connection with POST bodies that trickle. A newcomer is served,
/// closing one of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_bodies_of_one_token_do_not_keep_others_out() {
    const MAX: usize = 8;
    let http = start(
        HttpOptions::new()
            .auth(two_tokens())
            .max_connections(MAX)
            .max_connections_per_principal(MAX),
    )
    .await;
    let (addr, url) = (http.local_addr(), http.url());
    let mut attackers = Vec::new();
    for _ in 0..MAX {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        // A complete request first, so the connection is known to be the token's.
        let answer = exchange(
            &mut stream,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN_A}\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 Content-Length: 2\r\n\r\n{{}}"
            ),
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        // Then a body that trickles: one byte of a hundred.
        stream
            .write_all(
                format!(
                    "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN_A}\r\n\
                     Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                     Content-Length: 100\r\n\r\n{{"
                )
                .as_bytes(),
            )
            .await
            .unwrap();
        attackers.push(stream);
    }
    assert_eq!(status_line(&get(addr, "/healthz").await), "HTTP/1.1 200 OK");
    assert_eq!(list_tools(&url, TOKEN_B).await, StatusCode::OK);
    // At least one of the token's connections was closed to make room (more, when a
    // newcomer's connection was not closed yet when the next came).
    let text = metrics(addr).await;
    assert!(
        counter(&text, "mcp_refusals_total{reason=\"evicted_connections\"}") >= 1,
        "{text}"
    );
    http.shutdown();
}

/// A token at its share of connections, all of them busy with streams, gets its own
/// refusal naming the limit; another token is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_at_its_share_of_connections_is_refused_and_others_are_not() {
    let http = start(
        HttpOptions::new()
            .auth(two_tokens())
            .max_connections(8)
            .max_connections_per_principal(2),
    )
    .await;
    let (addr, url) = (http.local_addr(), http.url());
    let _first = listen(&url, Some(TOKEN_A), 1).await.unwrap();
    let _second = listen(&url, Some(TOKEN_A), 2).await.unwrap();
    let (status, text) = listen(&url, Some(TOKEN_A), 3).await.err().unwrap();
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(text.contains("max_connections_per_principal = 2"), "{text}");
    assert!(listen(&url, Some(TOKEN_B), 4).await.is_ok());
    let text = metrics(addr).await;
    assert_eq!(
        counter(
            &text,
            "mcp_refusals_total{reason=\"principal_connections\"}"
        ),
        1,
        "{text}"
    );
    http.shutdown();
}

/// Without authentication, one address holds its share of connections with streams; one
/// more from it is refused naming the limit, and another address is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_authentication_one_address_has_a_share_of_connections() {
    let http = start(
        HttpOptions::new()
            .max_connections(8)
            .max_connections_per_address(3),
    )
    .await;
    let (addr, url) = (http.local_addr(), http.url());
    let mut streams = Vec::new();
    for id in 0..3 {
        streams.push(listen(&url, None, id).await.unwrap());
    }
    let refused = get(addr, "/healthz").await;
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    assert!(
        refused.contains("max_connections_per_address = 3"),
        "{refused}"
    );
    // Another address (loopback is a /8) is served.
    let other = get_from([127, 0, 0, 2], addr, "/metrics", "127.0.0.1", "").await;
    assert_eq!(status_line(&other), "HTTP/1.1 200 OK", "{other}");
    assert_eq!(
        counter(&other, "mcp_refusals_total{reason=\"address_connections\"}"),
        1,
        "{other}"
    );
    http.shutdown();
}

/// One token opens its share of `subscriptions/listen` streams; one more is refused at once
/// with an error naming the limit, another token still listens, and a closed stream frees
/// its slot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listen_streams_over_the_share_are_refused_at_once() {
    let http = start(
        HttpOptions::new()
            .auth(two_tokens())
            .max_listen_streams_per_principal(2),
    )
    .await;
    let (addr, url) = (http.local_addr(), http.url());
    let first = listen(&url, Some(TOKEN_A), 1).await.unwrap();
    let _second = listen(&url, Some(TOKEN_A), 2).await.unwrap();
    let (status, text) = listen(&url, Some(TOKEN_A), 3).await.err().unwrap();
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["id"], 3, "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("max_listen_streams_per_principal = 2"),
        "{message}"
    );
    let _other = listen(&url, Some(TOKEN_B), 4).await.unwrap();
    let text = metrics(addr).await;
    assert_eq!(
        counter(&text, "mcp_refusals_total{reason=\"listen_streams\"}"),
        1,
        "{text}"
    );
    // Closing a stream gives its slot back (once the server noticed: retried until then).
    drop(first);
    let again = tokio::time::timeout(DEADLINE, async {
        loop {
            match listen(&url, Some(TOKEN_A), 5).await {
                Ok(stream) => return stream,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    })
    .await;
    assert!(again.is_ok(), "the closed stream's slot never came back");
    http.shutdown();
}

/// A POST whose body trickles is answered `408` and closed once its deadline passes (before,
/// a byte every 20 seconds held the connection forever).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickling_body_is_cut_off() {
    let http = start(
        HttpOptions::new()
            .auth(two_tokens())
            .body_read_timeout(Duration::from_millis(200)),
    )
    .await;
    let addr = http.local_addr();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN_A}\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 Content-Length: 100\r\n\r\n{{"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let answer = until_closed(&mut stream)
        .await
        .expect("the trickling connection was not closed");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("body_read_timeout"), "{answer}");
    let text = metrics(addr).await;
    assert_eq!(
        counter(&text, "mcp_refusals_total{reason=\"body_timeout\"}"),
        1,
        "{text}"
    );
    http.shutdown();
}

/// A web page whose name was rebound to the server's address sends its own `Host` (and
/// `Origin`): the ops endpoints refuse it as `/mcp` does; the server's own hosts are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ops_endpoints_refuse_a_rebinding_host() {
    let http = start(HttpOptions::new()).await;
    let addr = http.local_addr();
    for path in ["/healthz", "/readyz", "/metrics"] {
        let rebound = get_from([127, 0, 0, 1], addr, path, "evil.example.net", "").await;
        assert!(rebound.starts_with("HTTP/1.1 403"), "{path}: {rebound}");
        let foreign = get_from(
            [127, 0, 0, 1],
            addr,
            path,
            "localhost",
            "Origin: http://evil.example.net\r\n",
        )
        .await;
        assert!(foreign.starts_with("HTTP/1.1 403"), "{path}: {foreign}");
        let own = get_from(
            [127, 0, 0, 1],
            addr,
            path,
            &format!("localhost:{}", addr.port()),
            "",
        )
        .await;
        assert_eq!(status_line(&own), "HTTP/1.1 200 OK", "{path}: {own}");
    }
    http.shutdown();
}

/// Without authentication, one address opens its share of sessions; one more is refused
/// naming the limit, and another address still gets one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_authentication_one_address_has_a_share_of_sessions() {
    let http = start(HttpOptions::new().max_sessions_per_address(2)).await;
    let (addr, url) = (http.local_addr(), http.url());
    for _ in 0..2 {
        let response = common::initialize(&client(), &url, None).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    let over = common::initialize(&client(), &url, None).await;
    assert_eq!(over.status(), StatusCode::TOO_MANY_REQUESTS);
    let text = over.text().await.unwrap();
    assert!(text.contains("max_sessions_per_address = 2"), "{text}");
    // Another address: a raw `initialize` from 127.0.0.2.
    let body = common::initialize_body().to_string();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(([127, 0, 0, 2], 0).into()).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let answer = until_closed(&mut stream).await.expect("no answer");
    assert_eq!(status_line(&answer), "HTTP/1.1 200 OK", "{answer}");
    let text = metrics(addr).await;
    assert_eq!(
        counter(&text, "mcp_refusals_total{reason=\"address_sessions\"}"),
        1,
        "{text}"
    );
    http.shutdown();
}
