//! An agent whose tool list changes from turn to turn: each turn offers the model the tools
//! that fit the task (by category), exports exactly those schemas (OpenAI chat format here),
//! and runs the model's calls against the same set, so a call of a tool that was not
//! offered this turn is refused as unknown, however it learned the name.
//!
//! The model is canned (offline): each turn's reply is a fixed OpenAI chat message.
//!
//! Run it with `cargo run -p toolwright --example offered_per_turn`.

use std::sync::Arc;

use toolwright::formats::providers::openai;
use toolwright::formats::schema::Format;
use toolwright::runtime::ToolFilter;
use toolwright::serde_json::{Value, json};
use toolwright::{Executor, SafetyLevel, ToolError, register_all_tools, tool};

/// Look up a customer's open orders.
#[tool(categories(orders))]
fn list_orders(
    /// The customer's id, e.g. "C-17"
    customer: String,
) -> Result<String, ToolError> {
    match customer.as_str() {
        "C-17" => Ok("A-1 (12.50 EUR), A-2 (80.00 EUR)".into()),
        other => Err(ToolError::new(format!("no customer `{other}`"))),
    }
}

/// Refund an order, in full.
#[tool(safety = "cautious", categories(refunds))]
fn refund_order(
    /// The order to refund, e.g. "A-1"
    order: String,
) -> String {
    format!("refunded {order}")
}

/// Delete a customer and everything about them.
#[tool(safety = "dangerous", categories(admin))]
fn delete_customer(customer: String) -> String {
    format!("deleted {customer}")
}

/// What a model replies: an assistant message asking for tool calls (OpenAI chat).
fn model_reply(calls: &[(&str, &str, Value)]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::builder(Arc::new(register_all_tools()?))
        .max_safety(SafetyLevel::Cautious)
        .build();

    // Turn 1: the user asks about orders; only the order tools are offered.
    let turn = executor.offer(ToolFilter::new().categories(["orders"]));
    let tools = turn.schemas(Format::OpenAiChat);
    println!("turn 1 offers {:?}", turn.names());
    assert_eq!(tools.len(), 1);
    // The model calls the offered tool, and one it was not offered (it saw it last week).
    let reply = model_reply(&[
        ("c1", "list_orders", json!({"customer": "C-17"})),
        ("c2", "refund_order", json!({"order": "A-1"})),
    ]);
    let calls = openai::parse_chat_tool_calls(&reply)?;
    let results = executor.execute_batch(calls, turn.call_options()).await;
    for message in openai::chat_tool_messages(&results) {
        println!("  -> {message}");
    }
    assert_eq!(results[0].content, "A-1 (12.50 EUR), A-2 (80.00 EUR)");
    let refused = results[1].error.as_deref().unwrap_or_default();
    assert!(
        refused.starts_with("unknown tool `refund_order`"),
        "{refused}"
    );

    // Turn 2: the user asks for a refund; orders and refunds are offered. The admin tool is
    // above the executor's ceiling and is never offered, whatever the filter says.
    let turn = executor.offer(ToolFilter::new().categories(["orders", "refunds", "admin"]));
    println!("turn 2 offers {:?}", turn.names());
    assert_eq!(turn.names(), ["list_orders", "refund_order"]);
    let reply = model_reply(&[
        ("c3", "refund_order", json!({"order": "A-1"})),
        ("c4", "delete_customer", json!({"customer": "C-17"})),
    ]);
    let calls = openai::parse_chat_tool_calls(&reply)?;
    let results = executor.execute_batch(calls, turn.call_options()).await;
    for message in openai::chat_tool_messages(&results) {
        println!("  -> {message}");
    }
    assert_eq!(results[0].content, "refunded A-1");
    assert!(results[1].is_error());
    Ok(())
}
