//! How listing, schema export and search grow with the number of tools: 1,000 and 10,000
//! runtime-built tools.

use std::hint::black_box;

use benches::{runtime_registry, runtime_tools};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toolwright_core::SafetyLevel;
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_runtime::{ToolFilter, ToolRegistry};

fn scale(c: &mut Criterion) {
    for size in [1_000_usize, 10_000] {
        let registry = runtime_registry(size);
        let tools = registry.list(&ToolFilter::new());
        let filter = ToolFilter::new()
            .max_safety(SafetyLevel::Safe)
            .categories(["crm"]);

        let mut group = c.benchmark_group("scale");
        group.sample_size(20);
        group.bench_with_input(BenchmarkId::new("list_filtered", size), &size, |b, _| {
            b.iter(|| registry.list(black_box(&filter)))
        });
        for format in Format::ALL {
            group.bench_with_input(
                BenchmarkId::new(format!("export_{format}"), size),
                &size,
                |b, _| b.iter(|| tools_to_schema(black_box(&tools), format)),
            );
        }
        let built = runtime_tools(size);
        group.bench_with_input(
            BenchmarkId::new("register_and_index", size),
            &size,
            |b, _| {
                b.iter(|| {
                    let registry = ToolRegistry::new();
                    for tool in &built {
                        let _ = registry.register(tool.clone());
                    }
                    registry
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("search_query", size), &size, |b, _| {
            b.iter(|| registry.search(black_box("export the invoices of a customer"), 10))
        });
        group.finish();
    }
}

criterion_group!(benches, scale);
criterion_main!(benches);
