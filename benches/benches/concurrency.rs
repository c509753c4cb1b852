//! `execute_batch` with 1,000 calls: async calls that each await a 1 ms timer, and
//! trivial sync calls.

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwright_core::{ToolCall, tool};
use toolwright_runtime::{Executor, register_all_tools};

/// Wait one millisecond.
#[tool]
async fn wait_1ms() -> &'static str {
    tokio::time::sleep(Duration::from_millis(1)).await;
    "done"
}

/// Return at once.
#[tool]
fn trivial(n: i64) -> i64 {
    n
}

fn concurrency(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
        .concurrency(1000)
        .build();
    let mut group = c.benchmark_group("concurrency");
    group.sample_size(20);
    group.bench_function("1000_async_1ms", |b| {
        b.to_async(&runtime).iter(|| {
            let calls = (0..1000)
                .map(|i| ToolCall::new(format!("c{i}"), "wait_1ms", json!({})))
                .collect();
            executor.execute_batch(calls, Default::default())
        })
    });
    group.bench_function("1000_trivial_sync", |b| {
        b.to_async(&runtime).iter(|| {
            let calls = (0..1000)
                .map(|i| ToolCall::new(format!("c{i}"), "trivial", json!({"n": i})))
                .collect();
            executor.execute_batch(calls, Default::default())
        })
    });
    group.finish();
}

criterion_group!(benches, concurrency);
criterion_main!(benches);
