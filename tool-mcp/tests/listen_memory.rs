//! Memory comes back after load: many `subscriptions/listen` streams are opened and closed,
//! round after round, and the bytes the process has allocated (counted by this test
//! binary's global allocator, not the resident size, which the C allocator does not give
//! back to the system at once) return to what they were after the first round.
//!
//! Nothing is asserted on durations: after a round, the test waits (with a deadline that
//! fails it) until the server shows no stream and no connection open and the count is back.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolwright_mcp::{HttpOptions, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

/// Bytes allocated and not yet freed, by anyone in the process.
static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: every call goes to `System` unchanged; only the count is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller promised for `layout`.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: `pointer` came from `alloc` with `layout`.
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: as the caller promised.
        let moved = unsafe { System.realloc(pointer, layout, size) };
        if !moved.is_null() {
            LIVE.fetch_add(size as isize - layout.size() as isize, Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const DEADLINE: Duration = Duration::from_secs(60);
/// Streams per round.
const STREAMS: usize = 200;
/// Rounds after the first.
const ROUNDS: usize = 3;
/// What the first round may keep for good, in bytes.
const WARM_UP: isize = 1024 * 1024;
/// What the later rounds may keep in all, in bytes: 64 KiB, 100 bytes a stream.
const MARGIN: isize = 64 * 1024;

/// Opens a `subscriptions/listen` stream on a connection of its own and reads up to its
/// acknowledgment.
async fn listen(addr: SocketAddr, id: usize) -> TcpStream {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {
            "notifications": {"toolsListChanged": true},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "memory-test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 2048];
    while !String::from_utf8_lossy(&seen).contains("subscriptions/acknowledged") {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "closed: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..n]);
    }
    stream
}

/// A gauge of `/metrics`.
async fn gauge(addr: SocketAddr, name: &str) -> i64 {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {text}"))
}

/// One round: `STREAMS` streams opened, then all closed; returns once the server shows
/// none open (the `/metrics` connection itself aside).
async fn round(addr: SocketAddr) {
    let mut streams = Vec::with_capacity(STREAMS);
    for id in 0..STREAMS {
        streams.push(listen(addr, id).await);
    }
    assert_eq!(
        gauge(addr, "mcp_listen_streams_open ").await,
        STREAMS as i64
    );
    drop(streams);
    let closed = tokio::time::timeout(DEADLINE, async {
        while gauge(addr, "mcp_listen_streams_open ").await != 0
            || gauge(addr, "mcp_connections_open ").await > 1
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        closed.is_ok(),
        "the server still shows streams open {DEADLINE:?} after they closed"
    );
}

/// Waits until the live bytes are at most `limit`; the last count seen.
async fn settle_below(limit: isize) -> isize {
    let waited = tokio::time::timeout(DEADLINE, async {
        loop {
            let live = LIVE.load(Ordering::SeqCst);
            if live <= limit {
                return live;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    waited.unwrap_or_else(|_| LIVE.load(Ordering::SeqCst))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_returns_after_rounds_of_listen_streams() {
    let executor = Executor::builder(std::sync::Arc::new(ToolRegistry::new())).build();
    let server = McpServer::new(executor)
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new()
                .max_connections(4 * STREAMS)
                .max_connections_per_address(4 * STREAMS)
                .max_listen_streams_per_principal(4 * STREAMS),
        )
        .await
        .unwrap();
    let addr = server.local_addr();
    let start = LIVE.load(Ordering::SeqCst);
    // The first round grows what is kept for good (the runtime's tables, the allocator's
    // thread caches, lazily made statics); each round's streams end on the server within
    // ten seconds of being closed (their tasks notice the closed stream).
    round(addr).await;
    let first = settle_below(start + WARM_UP).await;
    assert!(
        first <= start + WARM_UP,
        "the first round kept {} bytes",
        first - start
    );
    let mut after = vec![first];
    for _ in 0..ROUNDS {
        round(addr).await;
        let last = after.last().copied().unwrap_or(first);
        after.push(settle_below(last + MARGIN).await);
    }
    eprintln!("live bytes before the rounds {start}, after each {after:?}");
    // A stream that left anything behind would leave it every round: over the limit by the
    // end, and growing round after round. A table that doubled once is neither.
    let grown = after.last().copied().unwrap_or(first) - first;
    assert!(
        grown <= MARGIN,
        "{grown} bytes kept over the rounds: {after:?}"
    );
    assert!(
        after
            .windows(2)
            .any(|pair| pair[1] - pair[0] <= (STREAMS as isize) * 8),
        "every round kept more: {after:?}"
    );
    server.shutdown();
}
