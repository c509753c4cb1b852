//! An agent loop on Anthropic's Messages format with deferred tools: the request carries
//! one tool in full and our `search_tools`; every other tool is sent with
//! `"defer_loading": true`. The model searches, our registry answers with `tool_reference`
//! blocks (what Anthropic's custom tool search takes), the model calls the tool it found,
//! and the executor runs it under its own policy. A call of a tool above the caller's
//! ceiling, which no search could have found, is refused.
//!
//! The model is scripted (offline): each turn's reply is a fixed assistant message in the
//! shape Anthropic documents
//! (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>).
//!
//! Run it with `cargo run -p toolwright --example deferred_agent`.

use std::sync::Arc;

use toolwright::formats::discovery::parse::{Step, parse_anthropic};
use toolwright::formats::discovery::reply::anthropic_search_result;
use toolwright::formats::discovery::{DeferPlan, SearchTool};
use toolwright::formats::providers::anthropic;
use toolwright::formats::schema::{Format, tools_to_schema};
use toolwright::runtime::{CallOptions, ToolFilter};
use toolwright::serde_json::{Value, json};
use toolwright::{Executor, SafetyLevel, ToolResult, register_all_tools, tool};

/// Look up a customer's open orders.
#[tool(categories(orders), priority = 100)]
fn list_orders(
    /// The customer's id, e.g. "C-17"
    customer: String,
) -> String {
    format!("{customer}: A-1 (12.50 EUR), A-2 (80.00 EUR)")
}

/// Refund an order, in full, to the card it was paid with.
#[tool(safety = "cautious", categories(refunds))]
fn refund_order(
    /// The order to refund, e.g. "A-1"
    order: String,
) -> String {
    format!("refunded {order}")
}

/// Print a shipping label for a parcel.
#[tool(categories(shipping))]
fn print_label(
    /// The order the parcel holds
    order: String,
) -> String {
    format!("label for {order}")
}

/// Convert an amount between currencies.
#[tool(categories(money))]
fn convert_currency(amount: f64, from: String, to: String) -> String {
    format!("{amount} {from} in {to}")
}

/// Delete a customer and everything about them.
#[tool(safety = "dangerous", categories(admin))]
fn delete_customer(customer: String) -> String {
    format!("deleted {customer}")
}

/// The scripted model: its reply for each turn, in Anthropic's documented shapes.
fn model_reply(turn: usize) -> Value {
    match turn {
        0 => json!({"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "I need a tool that refunds orders."},
            {"type": "tool_use", "id": "toolu_01", "name": "search_tools", "input": {"query": "refund an order"}}
        ]}),
        1 => json!({"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "Found it. Refunding A-1, and cleaning up the customer."},
            {"type": "tool_use", "id": "toolu_02", "name": "refund_order", "input": {"order": "A-1"}},
            // Not offered (above the caller's ceiling): it learned the name elsewhere.
            {"type": "tool_use", "id": "toolu_03", "name": "delete_customer", "input": {"customer": "C-17"}}
        ]}),
        _ => json!({"role": "assistant", "stop_reason": "end_turn", "content": [
            {"type": "text", "text": "Order A-1 is refunded."}
        ]}),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Arc::new(register_all_tools()?);
    let executor = Executor::builder(Arc::clone(&registry))
        .max_safety(SafetyLevel::Cautious)
        .build();
    // The caller's view: its ceiling. The list, the search and the calls all use it.
    let view = ToolFilter::new().max_safety(SafetyLevel::Cautious);
    let plan = DeferPlan::new()
        .core_priority_at_least(100)
        .search(SearchTool::Ours);
    let list = registry.export_deferred(&view, Format::Anthropic, &plan)?;
    let calls_allowed = CallOptions::new().allowed_tools(ToolFilter::new().names(list.offered()));

    let full =
        toolwright::serde_json::to_vec(&tools_to_schema(&registry.list(&view), Format::Anthropic))?;
    let visible = toolwright::serde_json::to_vec(&list.model_visible())?;
    println!(
        "tools offered: {:?}; {} deferred; the model sees {} bytes of tool definitions (full list: {} bytes)",
        list.offered().collect::<Vec<_>>(),
        list.deferred_count(),
        visible.len(),
        full.len()
    );
    assert!(!list.offers("delete_customer"));
    assert_eq!(list.tools()[0]["name"], "search_tools");
    assert_eq!(list.tools()[1]["name"], "list_orders");
    assert!(
        list.tools()[2..]
            .iter()
            .all(|tool| tool["defer_loading"] == true)
    );

    let mut transcript: Vec<Value> =
        vec![json!({"role": "user", "content": "Refund order A-1 of C-17."})];
    let (mut searches, mut runs, mut refused) = (0, Vec::new(), Vec::new());
    for turn in 0.. {
        let reply = model_reply(turn);
        transcript.push(reply.clone());
        if reply["stop_reason"] == "end_turn" {
            println!("model: {}", reply["content"][0]["text"]);
            break;
        }
        let mut answers: Vec<Value> = Vec::new();
        let mut calls = Vec::new();
        for step in parse_anthropic(&reply, &list)? {
            match step {
                Step::Search(request) => {
                    searches += 1;
                    let found = registry.answer_search(&request, &view, &list);
                    println!("search {:?} -> {found:?}", request.query);
                    answers.push(anthropic_search_result(&request, &found, &list));
                }
                Step::Call(call) => calls.push(call),
                Step::Refused { id, error } => {
                    println!("refused {id}: {error}");
                    refused.push(id.clone());
                    let result = ToolResult::failure(id, error.to_string());
                    answers.extend(blocks_of(anthropic::tool_results_message(&[result])));
                }
                other => println!("{other:?}"),
            }
        }
        // Every call goes through the executor: the offered set, its policy, its limits.
        let results = executor.execute_batch(calls, calls_allowed.clone()).await;
        for result in &results {
            println!("ran {} -> {}", result.id, result.content);
            runs.push((result.id.clone(), result.success, result.content.clone()));
        }
        answers.extend(blocks_of(anthropic::tool_results_message(&results)));
        transcript.push(json!({"role": "user", "content": answers}));
    }

    // The search found the refund tool, as a reference the model could load.
    assert_eq!(searches, 1);
    let reference = &transcript[2]["content"][0];
    assert_eq!(
        reference["content"][0],
        json!({"type": "tool_reference", "tool_name": "refund_order"})
    );
    // The found tool ran through the executor; the one above the ceiling did not.
    assert_eq!(
        runs,
        [("toolu_02".to_owned(), true, "refunded A-1".to_owned())]
    );
    assert_eq!(refused, ["toolu_03"]);
    assert!(visible.len() < full.len());
    Ok(())
}

/// The blocks of a `user` message.
fn blocks_of(message: Value) -> Vec<Value> {
    match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        _ => Vec::new(),
    }
}
