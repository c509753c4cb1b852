//! Anthropic Messages: `tool_use` content blocks and `tool_result` replies.

use serde_json::{Map, Value, json};

use super::{ProviderError, result_text, string_field};
use crate::call::{ToolCall, ToolResult};

const ANTHROPIC: &str = "Anthropic message";

/// The `tool_use` blocks of an assistant message (`{"role":"assistant","content":[...]}`)
/// or of its content array. A missing id becomes `toolu_<n>`.
///
/// # Errors
///
/// When the content is not an array of blocks.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::providers::anthropic::parse_tool_uses;
///
/// let message = json!({"role": "assistant", "content": [
///     {"type": "text", "text": "Let me check."},
///     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
/// ]});
/// let calls = parse_tool_uses(&message).unwrap();
/// assert_eq!(calls[0].arguments, json!({"city": "Oslo"}));
/// ```
pub fn parse_tool_uses(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let blocks = match message.get("content").unwrap_or(message) {
        Value::Array(blocks) => blocks,
        // A message whose content is plain text has no tool calls.
        Value::String(_) => return Ok(Vec::new()),
        _ => {
            return Err(ProviderError::new(
                ANTHROPIC,
                "content",
                "expected an array of content blocks",
            ));
        }
    };
    let mut calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if !block.is_object() {
            return Err(ProviderError::new(
                ANTHROPIC,
                format!("content[{index}]"),
                "expected a content block object",
            ));
        }
        if string_field(block, "type") != Some("tool_use") {
            continue;
        }
        calls.push(ToolCall::new(
            string_field(block, "id").map_or_else(|| format!("toolu_{index}"), str::to_owned),
            string_field(block, "name").unwrap_or_default(),
            block
                .get("input")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        ));
    }
    Ok(calls)
}

/// One `user` message with a `tool_result` block per result (`is_error` set on failures),
/// for the next request.
///
/// ```
/// use tool_runtime::providers::anthropic::tool_results_message;
/// use tool_runtime::ToolResult;
///
/// let message = tool_results_message(&[ToolResult::failure("toolu_1", "no such city")]);
/// assert_eq!(message["role"], "user");
/// assert_eq!(message["content"][0]["is_error"], true);
/// ```
pub fn tool_results_message(results: &[ToolResult]) -> Value {
    let blocks: Vec<Value> = results
        .iter()
        .map(|result| {
            let mut block = json!({
                "type": "tool_result",
                "tool_use_id": result.id,
                "content": result_text(result),
            });
            if !result.success {
                block["is_error"] = Value::Bool(true);
            }
            block
        })
        .collect();
    json!({"role": "user", "content": blocks})
}
