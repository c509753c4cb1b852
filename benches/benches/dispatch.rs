//! One call of a tool, from a JSON argument map to a result, five ways: a direct Rust call
//! (the floor), hand-written serde code (the baseline), `Tool::call_blocking` / `Tool::call`,
//! `Executor::execute` (a sync and an async tool), and rmcp's `#[tool_router]` dispatch. Then
//! the same for a ten-parameter tool.
//!
//! After criterion, it counts the allocations of one call of each variant (a counting global
//! allocator, on only while counting) and prints one summary: the ratios the goals of issue 38
//! name, from criterion's estimates of this run and measured again in alternation (which a
//! busy machine disturbs less), with the misses marked.

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use benches::{
    RmcpHarness, add_arguments, add_by_hand, add_numbers, search_arguments, search_by_hand,
};
use criterion::Criterion;
use serde_json::{Map, Value};
use toolwright_core::{Tool, ToolCall, ToolContext};
use toolwright_runtime::{Executor, register_all_tools};

/// `System`, counting allocations (and their bytes) while `COUNTING` is set. Off while
/// criterion measures, so the timed loops pay one relaxed load per allocation.
struct CountingAllocator;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

fn note(size: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(size as u64, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract is `System::alloc`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Calls per count: enough to average out a background task's allocation.
const COUNTED_CALLS: u64 = 2_000;

/// Allocations and bytes per call of one variant.
#[derive(Clone, Copy)]
struct Allocs {
    count: f64,
    bytes: f64,
}

fn counted(run: impl FnOnce()) -> Allocs {
    ALLOCATIONS.store(0, Ordering::Relaxed);
    BYTES.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::SeqCst);
    run();
    COUNTING.store(false, Ordering::SeqCst);
    let calls = COUNTED_CALLS as f64;
    Allocs {
        count: ALLOCATIONS.load(Ordering::Relaxed) as f64 / calls,
        bytes: BYTES.load(Ordering::Relaxed) as f64 / calls,
    }
}

fn count_sync<R>(mut call: impl FnMut() -> R) -> Allocs {
    // Warm: caches filled, lazy statics made.
    for _ in 0..100 {
        black_box(call());
    }
    counted(|| {
        for _ in 0..COUNTED_CALLS {
            black_box(call());
        }
    })
}

fn count_async<F: Future>(
    runtime: &tokio::runtime::Runtime,
    mut call: impl FnMut() -> F,
) -> Allocs {
    runtime.block_on(async {
        for _ in 0..100 {
            black_box(call().await);
        }
    });
    counted(|| {
        runtime.block_on(async {
            for _ in 0..COUNTED_CALLS {
                black_box(call().await);
            }
        })
    })
}

/// One measured variant: its criterion id (`group/name`), what it is, and its allocations.
struct Row {
    group: &'static str,
    name: &'static str,
    label: &'static str,
    allocs: Allocs,
}

/// What a run needs: the tools, the executor, rmcp's router, a runtime.
struct Setup {
    runtime: tokio::runtime::Runtime,
    add: Tool,
    search: Tool,
    executor: Executor,
    rmcp: RmcpHarness,
    context: ToolContext,
}

fn setup() -> Setup {
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
    Setup {
        runtime,
        add,
        search,
        executor,
        rmcp,
        context: ToolContext::new(),
    }
}

fn execute(
    executor: &Executor,
    tool: &'static str,
    arguments: &Map<String, Value>,
) -> impl Future<Output = toolwright_core::ToolResult> {
    executor.execute(ToolCall::new(
        "1",
        tool,
        Value::Object(black_box(arguments.clone())),
    ))
}

fn bench_add(c: &mut Criterion, s: &Setup) {
    let (runtime, add, executor, rmcp) = (&s.runtime, &s.add, &s.executor, &s.rmcp);
    let arguments = add_arguments();
    let mut group = c.benchmark_group("dispatch/add");
    group.bench_function("direct_call", |b| {
        b.iter(|| black_box(add_numbers(black_box(40), black_box(2))).to_string())
    });
    group.bench_function("hand_written", |b| {
        b.iter(|| add_by_hand(black_box(&arguments)))
    });
    group.bench_function("tool_call_blocking", |b| {
        b.iter(|| add.call_blocking(&s.context, black_box(arguments.clone())))
    });
    group.bench_function("tool_call", |b| {
        b.to_async(runtime)
            .iter(|| add.call(black_box(arguments.clone())))
    });
    group.bench_function("executor_execute", |b| {
        b.to_async(runtime)
            .iter(|| execute(executor, "add", &arguments))
    });
    group.bench_function("executor_execute_inline_tool", |b| {
        b.to_async(runtime)
            .iter(|| execute(executor, "add_inline", &arguments))
    });
    group.bench_function("executor_execute_async_tool", |b| {
        b.to_async(runtime)
            .iter(|| execute(executor, "add_async", &arguments))
    });
    group.bench_function("rmcp_tool_router", |b| {
        b.to_async(runtime)
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
        b.to_async(runtime).iter(|| {
            let (reply, answer) = tokio::sync::oneshot::channel();
            let _ = to_worker.send(reply);
            answer
        })
    });
    group.finish();
}

fn bench_ten_params(c: &mut Criterion, s: &Setup) {
    let (runtime, search, executor, rmcp) = (&s.runtime, &s.search, &s.executor, &s.rmcp);
    let arguments = search_arguments();
    let mut group = c.benchmark_group("dispatch/ten_params");
    group.bench_function("hand_written", |b| {
        b.iter(|| search_by_hand(black_box(&arguments)))
    });
    group.bench_function("tool_call_blocking", |b| {
        b.iter(|| search.call_blocking(&s.context, black_box(arguments.clone())))
    });
    group.bench_function("tool_call", |b| {
        b.to_async(runtime)
            .iter(|| search.call(black_box(arguments.clone())))
    });
    group.bench_function("executor_execute", |b| {
        b.to_async(runtime)
            .iter(|| execute(executor, "search_ten", &arguments))
    });
    group.bench_function("executor_execute_inline_tool", |b| {
        b.to_async(runtime)
            .iter(|| execute(executor, "search_ten_inline", &arguments))
    });
    group.bench_function("executor_execute_async_tool", |b| {
        b.to_async(runtime)
            .iter(|| execute(executor, "search_ten_async", &arguments))
    });
    group.bench_function("rmcp_tool_router", |b| {
        b.to_async(runtime)
            .iter(|| rmcp.call("search_ten", black_box(arguments.clone())))
    });
    group.finish();
}

/// Allocations per call of every variant (the map's clone, which every variant but the
/// direct call makes, counted in each and on its own).
fn count_allocations(s: &Setup) -> Vec<Row> {
    let (runtime, executor, rmcp, context) = (&s.runtime, &s.executor, &s.rmcp, &s.context);
    let mut rows = Vec::new();
    for (group, tool, async_tool, inline_tool, arguments, tool_value) in [
        (
            "dispatch/add",
            "add",
            "add_async",
            "add_inline",
            add_arguments(),
            &s.add,
        ),
        (
            "dispatch/ten_params",
            "search_ten",
            "search_ten_async",
            "search_ten_inline",
            search_arguments(),
            &s.search,
        ),
    ] {
        let arguments = &arguments;
        let hand_written: fn(&Map<String, Value>) -> Result<String, String> = match tool {
            "add" => add_by_hand,
            _ => search_by_hand,
        };
        let mut row = |name, label, allocs| {
            rows.push(Row {
                group,
                name,
                label,
                allocs,
            })
        };
        row(
            "",
            "the argument map's clone alone (in every row below)",
            count_sync(|| arguments.clone()),
        );
        row(
            "hand_written",
            "hand-written serde",
            count_sync(|| hand_written(arguments)),
        );
        row(
            "tool_call_blocking",
            "ours: Tool::call_blocking",
            count_sync(|| tool_value.call_blocking(context, arguments.clone())),
        );
        row(
            "tool_call",
            "ours: Tool::call(..).await",
            count_async(runtime, || tool_value.call(arguments.clone())),
        );
        row(
            "executor_execute",
            "ours: Executor::execute, sync tool",
            count_async(runtime, || execute(executor, tool, arguments)),
        );
        row(
            "executor_execute_inline_tool",
            "ours: Executor::execute, sync tool, inline",
            count_async(runtime, || execute(executor, inline_tool, arguments)),
        );
        row(
            "executor_execute_async_tool",
            "ours: Executor::execute, async tool",
            count_async(runtime, || execute(executor, async_tool, arguments)),
        );
        row(
            "rmcp_tool_router",
            "rmcp: ToolRouter::call",
            count_async(runtime, || rmcp.call(tool, arguments.clone())),
        );
    }
    rows
}

/// Runs `n` calls of one variant and says how long they took.
type Batch<'a> = Box<dyn FnMut(u64) -> Duration + 'a>;

fn sync_batch<'a, R>(mut call: impl FnMut() -> R + 'a) -> Batch<'a> {
    Box::new(move |n| {
        let start = Instant::now();
        for _ in 0..n {
            black_box(call());
        }
        start.elapsed()
    })
}

fn async_batch<'a, F: Future>(
    runtime: &'a tokio::runtime::Runtime,
    mut call: impl FnMut() -> F + 'a,
) -> Batch<'a> {
    Box::new(move |n| {
        runtime.block_on(async {
            let start = Instant::now();
            for _ in 0..n {
                black_box(call().await);
            }
            start.elapsed()
        })
    })
}

/// The variant criterion measured as `group/name`, as batches of calls.
fn batch<'a>(
    s: &'a Setup,
    arguments: &'a Map<String, Value>,
    group: &str,
    name: &str,
) -> Batch<'a> {
    let ten = group.ends_with("ten_params");
    let tool = if ten { &s.search } else { &s.add };
    let (sync_name, async_name, inline_name) = if ten {
        ("search_ten", "search_ten_async", "search_ten_inline")
    } else {
        ("add", "add_async", "add_inline")
    };
    match name {
        "hand_written" if ten => sync_batch(move || search_by_hand(arguments)),
        "hand_written" => sync_batch(move || add_by_hand(arguments)),
        "tool_call_blocking" => {
            sync_batch(move || tool.call_blocking(&s.context, arguments.clone()))
        }
        "executor_execute" => async_batch(&s.runtime, move || {
            execute(&s.executor, sync_name, arguments)
        }),
        "executor_execute_async_tool" => async_batch(&s.runtime, move || {
            execute(&s.executor, async_name, arguments)
        }),
        "executor_execute_inline_tool" => async_batch(&s.runtime, move || {
            execute(&s.executor, inline_name, arguments)
        }),
        _ => async_batch(&s.runtime, move || {
            s.rmcp.call(sync_name, arguments.clone())
        }),
    }
}

/// Rounds of the paired measurement.
const ROUNDS: usize = 31;

/// `a`'s time per call over `b`'s, measured in alternation (a batch of `a`, then one of `b`,
/// `ROUNDS` times, each batch about 2 ms): both see the same machine, so a load that comes
/// and goes moves both. The median of the rounds' ratios, and of each one's time per call.
fn paired(mut a: Batch<'_>, mut b: Batch<'_>) -> (f64, f64, f64) {
    let per_call = |batch: &mut Batch<'_>| {
        let probe = batch(100).as_secs_f64() / 100.0;
        ((0.002 / probe.max(1e-9)) as u64).clamp(10, 100_000)
    };
    let (na, nb) = (per_call(&mut a), per_call(&mut b));
    let (mut ratios, mut times_a, mut times_b) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let ta = a(na).as_secs_f64() / na as f64;
        let tb = b(nb).as_secs_f64() / nb as f64;
        ratios.push(ta / tb);
        times_a.push(ta * 1e9);
        times_b.push(tb * 1e9);
    }
    (median(ratios), median(times_a), median(times_b))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Where criterion writes its estimates: its own rule (`CRITERION_HOME`, else the cargo
/// target directory's `criterion`).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    let metadata = std::env::var_os("CARGO").and_then(|cargo| {
        std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()
    });
    metadata
        .and_then(|out| serde_json::from_slice::<Value>(&out.stdout).ok())
        .and_then(|meta| meta["target_directory"].as_str().map(PathBuf::from))
        .map_or_else(
            || PathBuf::from("target/criterion"),
            |t| t.join("criterion"),
        )
}

/// Criterion's estimate of one benchmark's time per call in nanoseconds (the figure it prints
/// in the middle of `time: [..]`), if this run measured it.
fn estimate(dir: &std::path::Path, started: SystemTime, group: &str, name: &str) -> Option<f64> {
    let file = dir
        .join(group.replace('/', "_"))
        .join(name)
        .join("new/estimates.json");
    // A file from an earlier run (this one filtered the benchmark out) is not this run's.
    let modified = std::fs::metadata(&file).ok()?.modified().ok()?;
    if modified < started {
        return None;
    }
    let estimates: Value = serde_json::from_slice(&std::fs::read(&file).ok()?).ok()?;
    let typical = match &estimates["slope"] {
        Value::Null => &estimates["mean"],
        slope => slope,
    };
    typical["point_estimate"].as_f64()
}

fn show_time(ns: Option<f64>) -> String {
    match ns {
        Some(ns) if ns >= 1_000.0 => format!("{:.2} µs", ns / 1_000.0),
        Some(ns) => format!("{ns:.0} ns"),
        None => "-".to_owned(),
    }
}

/// The summary: the goals' ratios, then the allocations table.
fn summary(s: &Setup, started: SystemTime, rows: &[Row]) {
    let dir = criterion_dir();
    let time = |group: &str, name: &str| estimate(&dir, started, group, name);
    let (add, ten) = (add_arguments(), search_arguments());
    let arguments = |group: &str| {
        if group.ends_with("ten_params") {
            &ten
        } else {
            &add
        }
    };
    println!();
    println!("== dispatch summary: the goals' ratios in this run ==");
    println!(
        "criterion: its estimates (one benchmark after the other); alternated: {ROUNDS} rounds \
         of ~2 ms batches of each, median ratio (the verdict; load that comes and goes moves both)"
    );
    let goals = [
        (
            "ten_params: ours (Tool::call_blocking) / rmcp ToolRouter::call",
            ("dispatch/ten_params", "tool_call_blocking"),
            ("dispatch/ten_params", "rmcp_tool_router"),
            1.0,
        ),
        (
            "add: ours (Tool::call_blocking) / hand-written",
            ("dispatch/add", "tool_call_blocking"),
            ("dispatch/add", "hand_written"),
            1.2,
        ),
        (
            "add: Executor::execute, sync tool declared inline / hand-written",
            ("dispatch/add", "executor_execute_inline_tool"),
            ("dispatch/add", "hand_written"),
            5.0,
        ),
        (
            "add: Executor::execute, sync tool on a thread (not inline) / hand-written",
            ("dispatch/add", "executor_execute"),
            ("dispatch/add", "hand_written"),
            f64::INFINITY,
        ),
        (
            "add: Executor::execute, async tool / hand-written",
            ("dispatch/add", "executor_execute_async_tool"),
            ("dispatch/add", "hand_written"),
            5.0,
        ),
        (
            "ten_params: Executor::execute, sync tool declared inline / hand-written",
            ("dispatch/ten_params", "executor_execute_inline_tool"),
            ("dispatch/ten_params", "hand_written"),
            5.0,
        ),
        (
            "ten_params: Executor::execute, sync tool on a thread (not inline) / hand-written",
            ("dispatch/ten_params", "executor_execute"),
            ("dispatch/ten_params", "hand_written"),
            f64::INFINITY,
        ),
        (
            "ten_params: Executor::execute, async tool / hand-written",
            ("dispatch/ten_params", "executor_execute_async_tool"),
            ("dispatch/ten_params", "hand_written"),
            5.0,
        ),
    ];
    for (label, ours, theirs, goal) in goals {
        let criterion = match (time(ours.0, ours.1), time(theirs.0, theirs.1)) {
            (Some(a), Some(b)) => format!("{:.2}x", a / b),
            _ => "-".to_owned(),
        };
        let (ratio, a, b) = paired(
            batch(s, arguments(ours.0), ours.0, ours.1),
            batch(s, arguments(theirs.0), theirs.0, theirs.1),
        );
        // A goal of infinity marks a row shown for comparison (a thread round trip).
        let verdict = if goal.is_infinite() {
            "no goal (one thread round trip)".to_owned()
        } else if ratio <= goal {
            format!("goal <= {goal}x met")
        } else {
            format!("goal <= {goal}x MISSED")
        };
        println!("{label}");
        println!(
            "    alternated {ratio:.2}x [{} / {}], criterion {criterion}: {verdict}",
            show_time(Some(a)),
            show_time(Some(b)),
        );
    }
    println!();
    println!("allocations per call (bytes per call), counted over {COUNTED_CALLS} calls:");
    for row in rows {
        let measured = if row.name.is_empty() {
            String::new()
        } else {
            show_time(time(row.group, row.name))
        };
        println!(
            "  {:<20} {:<52} {:>6.1} ({:>7.0} B)  {measured}",
            row.group.trim_start_matches("dispatch/"),
            row.label,
            row.allocs.count,
            row.allocs.bytes,
        );
    }
}

fn main() {
    let started = SystemTime::now();
    let mut criterion = Criterion::default().configure_from_args();
    let listing = std::env::args().any(|arg| arg == "--list");
    let setup = setup();
    bench_add(&mut criterion, &setup);
    bench_ten_params(&mut criterion, &setup);
    criterion.final_summary();
    if !listing {
        let rows = count_allocations(&setup);
        summary(&setup, started, &rows);
    }
}
