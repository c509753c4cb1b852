//! Issue 39, round two, the attacker: one caller subscribes to thousands of distinct URIs
//! over many sessions, each closed after its share is full. The limits bound what is held
//! at once; this test checks that what a closed session subscribed to is also forgotten:
//! the bytes the process holds (counted by this binary's global allocator) come back to
//! what they were after the first round, instead of growing with every URI ever watched.
//! Nothing is asserted on durations: each wait is for an event, with a deadline that fails.

#![allow(deprecated)] // `resources/subscribe` is the handshake era's, and what is attacked here

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::SubscribeRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use toolwright_core::{Resource, ResourceRequest, SafetyLevel, ToolContext};
use toolwright_mcp::{HttpServer, McpServer};
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
/// URIs per session (its share, and the caller's).
const PER_SESSION: usize = 100;
/// Bytes of each URI's id: what a forgotten URI would keep.
const ID_BYTES: usize = 4096;
/// Rounds after the first.
const ROUNDS: usize = 8;
/// What the later rounds may keep in all: a tenth of what they subscribed to.
const MARGIN: isize = (ROUNDS * PER_SESSION * ID_BYTES / 10) as isize;

async fn start() -> HttpServer {
    let registry = ToolRegistry::new();
    registry
        .register_resource(
            Resource::builder("note", "notes://{id}")
                .handler(|request: ResourceRequest, _: ToolContext| async move {
                    Ok::<_, toolwright_core::ToolError>(format!("note {}", request.variable("id")?))
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let executor = Executor::builder(Arc::new(registry))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    McpServer::new(executor)
        .max_subscriptions(PER_SESSION, PER_SESSION)
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap()
}

/// One session: subscribes to `PER_SESSION` new URIs (its first waits until the previous
/// session's were given back), then closes.
async fn round(http: &HttpServer, round: usize) {
    let client = ().serve(StreamableHttpClientTransport::from_uri(http.url())).await.unwrap();
    let pad = "a".repeat(ID_BYTES);
    let uri = |i: usize| format!("notes://r{round}-{i}-{pad}");
    let first = tokio::time::timeout(DEADLINE, async {
        while client
            .subscribe(SubscribeRequestParams::new(uri(0)))
            .await
            .is_err()
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        first.is_ok(),
        "the previous session's subscriptions never came back"
    );
    for i in 1..PER_SESSION {
        client
            .subscribe(SubscribeRequestParams::new(uri(i)))
            .await
            .unwrap_or_else(|e| panic!("round {round}, URI {i}: {e}"));
    }
    client.cancel().await.unwrap();
}

/// Waits until the last session's subscriptions were given back (the caller's share is
/// free: a probe can take all of it), then closes the probe.
async fn settled(http: &HttpServer) {
    let client = ().serve(StreamableHttpClientTransport::from_uri(http.url())).await.unwrap();
    let freed = tokio::time::timeout(DEADLINE, async {
        for i in 0..PER_SESSION {
            let uri = format!("notes://probe{i}");
            while client
                .subscribe(SubscribeRequestParams::new(uri.clone()))
                .await
                .is_err()
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    })
    .await;
    assert!(
        freed.is_ok(),
        "a closed session's subscriptions never came back"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_sessions_subscriptions_are_forgotten() {
    let http = start().await;
    round(&http, 0).await;
    settled(&http).await;
    let after_first = LIVE.load(Ordering::SeqCst);
    for r in 1..=ROUNDS {
        round(&http, r).await;
    }
    settled(&http).await;
    let kept = LIVE.load(Ordering::SeqCst) - after_first;
    assert!(
        kept < MARGIN,
        "{kept} bytes kept after {ROUNDS} closed sessions of {PER_SESSION} URIs of {ID_BYTES} \
         bytes (at most {MARGIN})"
    );
    http.shutdown();
}

/// A subscription keeps its URI for as long as the session lives: one of 100 KiB is refused
/// (a template matches no URI over `toolwright_names`' 8 KiB, so it names no resource; else
/// a caller's 1,024 subscriptions could hold a 4 MiB request body each); one of 1 KiB is
/// taken.
#[tokio::test]
async fn a_huge_uri_cannot_be_subscribed_to() {
    let http = start().await;
    let client = ().serve(StreamableHttpClientTransport::from_uri(http.url())).await.unwrap();
    let huge = format!("notes://{}", "h".repeat(100 * 1024));
    let refused = client
        .subscribe(SubscribeRequestParams::new(huge))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("no resource"),
        "{refused:.200}"
    );
    let fine = format!("notes://{}", "f".repeat(1024));
    client
        .subscribe(SubscribeRequestParams::new(fine))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    http.shutdown();
}
