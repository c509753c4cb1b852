//! Anthropic Messages: `tool_use` content blocks and `tool_result` replies.

use serde_json::{Map, Value, json};

use super::{
    COMMON_IMAGE_TYPES, ProviderError, is_image_of, is_pdf, media, result_text, string_field,
};
use toolwright_core::Content;
use toolwright_core::ToolCall;
use toolwright_core::ToolResult;

const ANTHROPIC: &str = "Anthropic message";

/// The `tool_use` blocks of an assistant message (`{"role":"assistant","content":[...]}`)
/// or of its content array. A missing id becomes `toolu_<n>`.
///
/// # Errors
///
/// When the content is not an array of blocks.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::anthropic::parse_tool_uses;
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
/// for the next request. A result with content blocks sends them as a list: `text`, `image`
/// (PNG, JPEG, GIF, WebP, base64), `document` (embedded PDFs), and the text placeholder of
/// any other block (audio, resource links, other types).
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::anthropic::tool_results_message;
/// use toolwright_core::{Image, ToolOutput, ToolResult};
///
/// let message = tool_results_message(&[ToolResult::failure("toolu_1", "no such city")]);
/// assert_eq!(message["role"], "user");
/// assert_eq!(message["content"][0]["is_error"], true);
///
/// let output = ToolOutput::text("Radar:").block(Image::gif(b"gif".to_vec()));
/// let message = tool_results_message(&[ToolResult::from_output("toolu_2", output)]);
/// assert_eq!(message["content"][0]["content"][1], json!({"type": "image", "source":
///     {"type": "base64", "media_type": "image/gif", "data": "Z2lm"}}));
/// ```
pub fn tool_results_message(results: &[ToolResult]) -> Value {
    let blocks: Vec<Value> = results
        .iter()
        .map(|result| {
            let content = if result.success && !result.blocks.is_empty() {
                Value::Array(result.blocks.iter().filter_map(content_block).collect())
            } else {
                Value::String(result_text(result))
            };
            let mut block = json!({
                "type": "tool_result",
                "tool_use_id": result.id,
                "content": content,
            });
            if !result.success {
                block["is_error"] = Value::Bool(true);
            }
            block
        })
        .collect();
    json!({"role": "user", "content": blocks})
}

/// A `tool_result` content block for `block` (none for empty text: the API refuses it).
fn content_block(block: &Content) -> Option<Value> {
    if let Some(found) = media(block) {
        if is_image_of(block, COMMON_IMAGE_TYPES) {
            return Some(json!({"type": "image", "source": {
                "type": "base64", "media_type": found.mime_type, "data": found.base64(),
            }}));
        }
        if is_pdf(block) {
            return Some(json!({"type": "document", "source": {
                "type": "base64", "media_type": "application/pdf", "data": found.base64(),
            }}));
        }
    }
    let text = block.text_or_placeholder();
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}
