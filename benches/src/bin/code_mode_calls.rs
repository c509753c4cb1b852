//! Code mode against one model turn per call: a task that needs 20 tool calls, done as 20
//! tool-use turns, and as one `run_code` program that makes the 20 calls in the sandbox.
//! Both run for real through one executor (the program in `run_code`'s confinement); the
//! model's side is scripted. Counted: tool calls that ran, model turns, the bytes the model
//! writes (its calls), the bytes of results sent back to it, and the bytes (and o200k tokens)
//! it reads over the whole task, since each turn reads the conversation so far. Counts, not
//! timings: the load of the machine does not change them.
//!
//! `cargo run -p benches --bin code_mode_calls` (BENCHMARKS.md, "Code mode").

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;
use toolwright_core::{Tool, ToolCall};
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_runtime::{ApprovalDecision, ApprovalRequest, CallOptions, Executor, ToolFilter};

const CALLS: u32 = 20;
const PROMPT: &str = "Orders 1 to 20: what is their total, and which are over 100?";

/// An order record of the size a real API returns (about 400 bytes).
fn order(id: u64) -> Value {
    json!({
        "id": id,
        "customer": {"name": format!("Customer {id}"), "email": format!("c{id}@example.com")},
        "status": "shipped",
        "items": [
            {"sku": format!("SKU-{id}-A"), "quantity": 1 + id % 3, "unit_price": 12.5 + id as f64},
            {"sku": format!("SKU-{id}-B"), "quantity": 2, "unit_price": 3.25 * id as f64},
        ],
        "total": 12.5 + id as f64 * 7.5,
        "created_at": "2026-11-27T10:00:00Z",
        "shipping": {"carrier": "post", "tracking": format!("TRK{id:08}")},
    })
}

fn get_order(ran: Arc<AtomicU32>) -> Tool {
    Tool::builder("get_order")
        .description("Fetch one order by its id: customer, items, total, shipping.")
        .input_schema(json!({
            "type": "object",
            "properties": {"id": {"type": "integer", "description": "The order's id"}},
            "required": ["id"],
        }))
        .handler(move |args| {
            ran.fetch_add(1, Ordering::Relaxed);
            let id = args.get("id").and_then(Value::as_u64).unwrap_or(0);
            async move { order(id) }
        })
        .build()
        .unwrap_or_else(|e| panic!("get_order: {e}"))
}

/// What the model reads and writes over a task, and how many turns it took.
#[derive(Default)]
struct Tally {
    turns: u32,
    written: usize,
    results: usize,
    /// The bytes read over all turns (each turn reads the conversation so far).
    read: usize,
    read_tokens: usize,
}

impl Tally {
    /// One model turn: it reads `context` and writes `output`.
    fn turn(&mut self, context: &[String], output: &str, bpe: &CoreBPE) {
        self.turns += 1;
        let text: String = context.concat();
        self.read += text.len();
        self.read_tokens += bpe.encode_ordinary(&text).len();
        self.written += output.len();
    }
}

fn tool_use(id: &str, name: &str, input: &Value) -> String {
    json!({"type": "tool_use", "id": id, "name": name, "input": input}).to_string()
}

fn tool_result(id: &str, content: &str) -> String {
    json!({"type": "tool_result", "tool_use_id": id, "content": content}).to_string()
}

#[tokio::main]
async fn main() {
    let bpe = tiktoken_rs::o200k_base().unwrap_or_else(|error| panic!("o200k_base: {error}"));
    let ran = Arc::new(AtomicU32::new(0));
    let registry = toolwright_std::registry().unwrap_or_else(|e| panic!("registry: {e}"));
    registry
        .register(get_order(Arc::clone(&ran)))
        .unwrap_or_else(|e| panic!("register: {e}"));
    let registry = Arc::new(registry);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let executor = Executor::builder(Arc::clone(&registry))
        .state(toolwright_std::Workspace::new(dir.path()).unwrap_or_else(|e| panic!("{e}")))
        .state(toolwright_std::code_mode::CodeMode::new())
        .approval(|_: ApprovalRequest| async { ApprovalDecision::Approved })
        .nested_calls_for(["run_code"])
        .build();
    let final_answer = "The total is 1,825.0; orders 12 to 20 are over 100.";

    // One turn per call.
    let direct_tools: Vec<Tool> = ["get_order"]
        .iter()
        .filter_map(|n| registry.get(n))
        .collect();
    let mut context = vec![
        Value::Array(tools_to_schema(&direct_tools, Format::Anthropic)).to_string(),
        PROMPT.to_owned(),
    ];
    let mut direct = Tally::default();
    for id in 1..=CALLS {
        let call_id = format!("toolu_{id}");
        let input = json!({"id": id});
        let call = tool_use(&call_id, "get_order", &input);
        direct.turn(&context, &call, &bpe);
        context.push(call);
        let result = executor
            .execute(ToolCall::new(&call_id, "get_order", input))
            .await;
        let result = tool_result(&call_id, &result.content);
        direct.results += result.len();
        context.push(result);
    }
    direct.turn(&context, final_answer, &bpe);
    let direct_ran = ran.swap(0, Ordering::Relaxed);

    // One program.
    let offered = ToolFilter::new().names(["get_order", "run_code"]);
    let code_tools = registry.list(&offered);
    let mut context = vec![
        Value::Array(tools_to_schema(&code_tools, Format::Anthropic)).to_string(),
        PROMPT.to_owned(),
    ];
    let program = "orders = [get_order(id=i) for i in range(1, 21)]\n\
                   {'total': sum(o['total'] for o in orders), \
                   'over_100': [o['id'] for o in orders if o['total'] > 100]}";
    let input = json!({"code": program});
    let call = tool_use("toolu_code", "run_code", &input);
    let mut code = Tally::default();
    code.turn(&context, &call, &bpe);
    context.push(call);
    let report = executor
        .execute_with(
            ToolCall::new("toolu_code", "run_code", input),
            CallOptions::new().allowed_tools(offered),
        )
        .await;
    assert!(report.result.success, "{:?}", report.result.error);
    let output: Value = serde_json::from_str(&report.result.content).unwrap_or_default();
    assert_eq!(output["calls_made"], CALLS, "{output}");
    let result = tool_result("toolu_code", &report.result.content);
    code.results += result.len();
    context.push(result);
    code.turn(&context, final_answer, &bpe);
    let code_ran = ran.load(Ordering::Relaxed);

    println!(
        "program result: {}, in {} ms",
        output["result"], output["duration_ms"]
    );
    println!(
        "| | tool calls run | model turns | bytes the model writes | bytes of results to the model | bytes read over the task | o200k tokens read |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (label, ran, t) in [
        ("20 model turns", direct_ran, &direct),
        ("one `run_code` program", code_ran, &code),
    ] {
        println!(
            "| {label} | {ran} | {} | {} | {} | {} | {} |",
            t.turns, t.written, t.results, t.read, t.read_tokens
        );
    }
    println!(
        "| ratio (program / turns) | | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
        f64::from(code.turns) / f64::from(direct.turns),
        code.written as f64 / direct.written as f64,
        code.results as f64 / direct.results as f64,
        code.read as f64 / direct.read as f64,
        code.read_tokens as f64 / direct.read_tokens as f64,
    );
}
