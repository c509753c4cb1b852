//! One whole agent turn, offline: a canned OpenAI chat completion asks for two tool calls in
//! parallel (one with broken arguments); the executor runs them; the results become the
//! messages of the next request, which are printed.
//!
//! Run it with `cargo run --example agent_loop`.

use std::sync::Arc;

use toolwright_core::serde_json::{Value, json};
use toolwright_core::{SafetyLevel, ToolError, tool};
use toolwright_formats::providers::openai;
use toolwright_formats::schema::{Format, tools_to_schema};
use toolwright_runtime::{Executor, ToolFilter, register_all_tools};

/// Get the current weather for a city.
#[tool(categories(weather))]
async fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
) -> Result<String, ToolError> {
    match city.as_str() {
        "Paris" => Ok("Paris: 18 °C, light rain".to_owned()),
        "Tokyo" => Ok("Tokyo: 24 °C, clear".to_owned()),
        other => Err(ToolError::new(format!("no weather station in `{other}`"))),
    }
}

/// Convert an amount between currencies at today's rate.
#[tool(categories(finance))]
fn convert_currency(
    /// Amount to convert
    amount: f64,
    /// ISO code of the source currency, e.g. "EUR"
    from: String,
    /// ISO code of the target currency, e.g. "USD"
    to: String,
) -> Result<String, ToolError> {
    let rate = match (from.as_str(), to.as_str()) {
        ("EUR", "USD") => 1.08,
        ("USD", "EUR") => 1.0 / 1.08,
        _ => return Err(ToolError::new(format!("no rate from {from} to {to}"))),
    };
    Ok(format!("{amount} {from} = {:.2} {to}", amount * rate))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Arc::new(register_all_tools()?);
    let executor = Executor::builder(Arc::clone(&registry))
        .max_safety(SafetyLevel::Cautious)
        .build();

    // 1. The request: the conversation so far and the tools, in OpenAI's format.
    let tools = tools_to_schema(&registry.list(&ToolFilter::new()), Format::OpenAiChat);
    let mut messages = vec![json!({
        "role": "user",
        "content": "What's the weather in Paris, and what is 50 EUR in USD?"
    })];
    println!(
        "== request: {} tools offered ==\n{}\n",
        tools.len(),
        toolwright_core::serde_json::to_string_pretty(&tools)?
    );

    // 2. The model's answer (canned here): two tool calls, the second with broken JSON.
    let completion = json!({
        "id": "chatcmpl-123",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    {"id": "call_weather", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                    {"id": "call_fx", "type": "function",
                     "function": {"name": "convert_currency", "arguments": "{\"amount\": 50, \"from\": \"EUR\", \"to\": "}}
                ]
            }
        }]
    });
    let assistant: Value = completion["choices"][0]["message"].clone();
    let calls = openai::parse_chat_tool_calls(&completion)?;
    println!("== the model asked for {} calls ==", calls.len());
    for call in &calls {
        println!("{} {}({})", call.id, call.name, call.arguments);
    }

    // 3. Run them (in parallel), every failure becoming a result the model can read.
    let results = executor.execute_batch(calls, Default::default()).await;

    // 4. The next request's messages: the assistant's message, then one tool message per call.
    messages.push(assistant);
    messages.extend(openai::chat_tool_messages(&results));
    println!(
        "\n== next request's messages ==\n{}",
        toolwright_core::serde_json::to_string_pretty(&messages)?
    );
    println!(
        "\n== metadata ==\n{}",
        toolwright_core::serde_json::to_string_pretty(
            &results.iter().map(|r| &r.metadata).collect::<Vec<_>>()
        )?
    );
    Ok(())
}
