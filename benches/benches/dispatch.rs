//! One call of a tool, from a JSON argument map to a result, five ways: a direct Rust call
//! (the floor), hand-written serde code (the baseline), `Tool::call`, `Executor::execute`, and
//! rmcp's `#[tool_router]` dispatch. Then the same for a ten-parameter tool.

use std::hint::black_box;
use std::sync::Arc;

use benches::{
    RmcpHarness, add_arguments, add_by_hand, add_numbers, search_arguments, search_by_hand,
};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use toolwright_core::{ToolCall, ToolContext};
use toolwright_runtime::{Executor, register_all_tools};

fn dispatch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let registry = Arc::new(register_all_tools().unwrap());
    let add = registry.get("add").unwrap();
    let search = registry.get("search_ten").unwrap();
    let executor = Executor::builder(Arc::clone(&registry)).build();
    let rmcp = runtime.block_on(RmcpHarness::start());
    let context = ToolContext::new();

    let mut group = c.benchmark_group("dispatch/add");
    let arguments = add_arguments();
    group.bench_function("direct_call", |b| {
        b.iter(|| black_box(add_numbers(black_box(40), black_box(2))).to_string())
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| add_by_hand(black_box(&arguments)))
    });
    group.bench_function("tool_call_blocking", |b| {
        b.iter(|| add.call_blocking(&context, black_box(arguments.clone())))
    });
    group.bench_function("tool_call", |b| {
        b.to_async(&runtime)
            .iter(|| add.call(black_box(arguments.clone())))
    });
    group.bench_function("executor_execute", |b| {
        b.to_async(&runtime).iter(|| {
            executor.execute(ToolCall::new(
                "1",
                "add",
                Value::Object(black_box(arguments.clone())),
            ))
        })
    });
    group.bench_function("executor_execute_async_tool", |b| {
        b.to_async(&runtime).iter(|| {
            executor.execute(ToolCall::new(
                "1",
                "add_async",
                Value::Object(black_box(arguments.clone())),
            ))
        })
    });
    group.bench_function("rmcp_tool_router", |b| {
        b.to_async(&runtime)
            .iter(|| rmcp.call("add", black_box(arguments.clone())))
    });
    // The floor for any executor that runs sync tools off the async workers: one round trip
    // to a waiting thread and back.
    let (to_worker, jobs) = std::sync::mpsc::channel::<tokio::sync::oneshot::Sender<i64>>();
    std::thread::spawn(move || {
        while let Ok(reply) = jobs.recv() {
            let _ = reply.send(add_numbers(40, 2));
        }
    });
    group.bench_function("thread_round_trip", |b| {
        b.to_async(&runtime).iter(|| {
            let (reply, answer) = tokio::sync::oneshot::channel();
            let _ = to_worker.send(reply);
            answer
        })
    });
    group.finish();

    let mut group = c.benchmark_group("dispatch/ten_params");
    let arguments = search_arguments();
    group.bench_function("hand_written", |b| {
        b.iter(|| search_by_hand(black_box(&arguments)))
    });
    group.bench_function("tool_call_blocking", |b| {
        b.iter(|| search.call_blocking(&context, black_box(arguments.clone())))
    });
    group.bench_function("executor_execute", |b| {
        b.to_async(&runtime).iter(|| {
            executor.execute(ToolCall::new(
                "1",
                "search_ten",
                Value::Object(black_box(arguments.clone())),
            ))
        })
    });
    group.bench_function("rmcp_tool_router", |b| {
        b.to_async(&runtime)
            .iter(|| rmcp.call("search_ten", black_box(arguments.clone())))
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
