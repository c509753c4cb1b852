//! An embedder's status source on `/readyz` and `/metrics` (`HttpOptions::status_source`):
//! a source that is not ready makes `/readyz` answer 503 with its detail, and its metrics
//! are shown under the server's prefix, counters with `_total`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use reqwest::StatusCode;
use toolwright_mcp::status::{MetricKind, Readiness, Sample, StatusMetric, StatusSource};
use toolwright_mcp::{HttpOptions, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

/// A part that is ready when told, with a line of detail an attacker-shaped name could not
/// split (a line break in it).
struct Part {
    ready: AtomicBool,
}

impl StatusSource for Part {
    fn readiness(&self) -> Readiness {
        let readiness = if self.ready.load(Ordering::SeqCst) {
            Readiness::ready()
        } else {
            Readiness::not_ready()
        };
        readiness.detail("part: fine\nready")
    }

    fn metrics(&self) -> Vec<StatusMetric> {
        vec![
            StatusMetric::new("part_up", "1 while the part is up", MetricKind::Gauge)
                .sample(Sample::new(1.0).label("part", "a")),
            StatusMetric::new("part_restarts", "Restarts of the part", MetricKind::Counter)
                .sample(Sample::new(3.0).label("part", "a")),
        ]
    }
}

#[tokio::test]
async fn a_status_source_decides_readiness_and_adds_its_metrics() {
    let part = Arc::new(Part {
        ready: AtomicBool::new(false),
    });
    let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();
    let http = McpServer::new(executor)
        .serve_http_with(
            ([127, 0, 0, 1], 0).into(),
            HttpOptions::new().status_source(Arc::clone(&part) as Arc<dyn StatusSource>),
        )
        .await
        .unwrap();
    let base = http.url().trim_end_matches("/mcp").to_owned();
    let web = reqwest::Client::new();

    let ready = web.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    // One line per detail: a line break in one cannot forge the word `ready`.
    assert_eq!(ready.text().await.unwrap(), "not ready\npart: fine ready\n");

    part.ready.store(true, Ordering::SeqCst);
    let ready = web.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::OK);
    assert_eq!(ready.text().await.unwrap(), "ready\npart: fine ready\n");

    let metrics = web
        .get(format!("{base}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("mcp_part_up{part=\"a\"} 1"), "{metrics}");
    assert!(
        metrics.contains("mcp_part_restarts_total{part=\"a\"} 3"),
        "{metrics}"
    );
    assert!(metrics.ends_with("# EOF\n"));
}
