//! `register_all_tools` with 500 generated `#[tool]` functions linked in.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

// Links the fixture crate, so its 500 tools are collected.
use tools_500 as _;

fn collect(c: &mut Criterion) {
    let first = std::time::Instant::now();
    let registry = toolwright_runtime::register_all_tools().unwrap();
    eprintln!(
        "first register_all_tools with {} tools: {:?}",
        registry.len(),
        first.elapsed()
    );
    let mut group = c.benchmark_group("collect");
    group.sample_size(20);
    group.bench_function("register_all_tools/500", |b| {
        b.iter(|| black_box(toolwright_runtime::register_all_tools().unwrap()))
    });
    group.finish();
}

criterion_group!(benches, collect);
criterion_main!(benches);
