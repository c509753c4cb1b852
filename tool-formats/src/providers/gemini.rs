//! Gemini: `functionCall` parts and `functionResponse` replies.

use serde_json::{Map, Value, json};

use super::{ProviderError, is_image_of, is_pdf, media, result_text, string_field};
use toolwright_core::Content;
use toolwright_core::ResourceData;
use toolwright_core::ToolCall;
use toolwright_core::ToolResult;

const GEMINI: &str = "Gemini response";

/// The prefix of the ids given to calls Gemini sent without one. They stay stable for a given
/// response (`gemini_call_<n>`, by position) and are never sent back to Gemini.
pub const GENERATED_ID_PREFIX: &str = "gemini_call_";

/// The `functionCall` parts of a Gemini response (its first candidate), of a `content`
/// (`{"role":"model","parts":[...]}`), or of a parts array.
///
/// # Errors
///
/// When the parts are not an array of objects.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::gemini::parse_function_calls;
///
/// let response = json!({"candidates": [{"content": {"role": "model", "parts": [
///     {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
/// ]}}]});
/// let calls = parse_function_calls(&response).unwrap();
/// assert_eq!(calls[0].id, "gemini_call_0");
/// assert_eq!(calls[0].arguments, json!({"city": "Rome"}));
/// ```
pub fn parse_function_calls(response: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let parts = response
        .pointer("/candidates/0/content/parts")
        .or_else(|| response.get("parts"))
        .unwrap_or(response);
    let Value::Array(parts) = parts else {
        if response.get("candidates").is_some() {
            // A candidate without content (blocked, or finished early) has no calls.
            return Ok(Vec::new());
        }
        return Err(ProviderError::new(
            GEMINI,
            "parts",
            "expected an array of parts",
        ));
    };
    let mut calls = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        if !part.is_object() {
            return Err(ProviderError::new(
                GEMINI,
                format!("parts[{index}]"),
                "expected a part object",
            ));
        }
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        calls.push(ToolCall::new(
            string_field(call, "id")
                .map_or_else(|| format!("{GENERATED_ID_PREFIX}{index}"), str::to_owned),
            string_field(call, "name").unwrap_or_default(),
            call.get("args")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        ));
    }
    Ok(calls)
}

/// The `user` content with one `functionResponse` part per result, for the next request.
/// Gemini matches responses by name, so the calls are needed too; a result whose call is not
/// among `calls` is answered under the name `unknown`. Success is `{"result": ...}` (the
/// structured output when there is one), failure `{"error": ...}`.
///
/// A result with content blocks answers with its text (a placeholder for each block that is
/// not text) in `result`, and the media Gemini takes in a function response (PNG, JPEG and
/// WebP images, PDF and plain text documents) as `inlineData` parts of the
/// `functionResponse` (Gemini 3's multimodal function responses).
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::gemini::function_responses;
/// use toolwright_core::{Image, ToolCall, ToolOutput, ToolResult};
///
/// let calls = [ToolCall::new("c1", "snapshot", json!({}))];
/// let output = ToolOutput::from_blocks([Image::webp(b"webp".to_vec())]);
/// let content = function_responses(&calls, &[ToolResult::from_output("c1", output)]);
/// assert_eq!(content["parts"][0]["functionResponse"]["parts"][0],
///     json!({"inlineData": {"mimeType": "image/webp", "data": "d2VicA=="}}));
/// ```
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::gemini::function_responses;
/// use toolwright_core::{ToolCall, ToolResult};
///
/// let calls = [ToolCall::new("gemini_call_0", "get_weather", json!({"city": "Rome"}))];
/// let content = function_responses(&calls, &[ToolResult::success("gemini_call_0", "21 °C")]);
/// assert_eq!(content["parts"][0], json!({"functionResponse": {"name": "get_weather", "response": {"result": "21 °C"}}}));
/// ```
pub fn function_responses(calls: &[ToolCall], results: &[ToolResult]) -> Value {
    let parts: Vec<Value> = results
        .iter()
        .map(|result| {
            let name = calls
                .iter()
                .find(|call| call.id == result.id)
                .map_or("unknown", |call| call.name.as_str());
            let response = if result.success {
                json!({"result": result.structured_content.clone().unwrap_or_else(|| Value::String(result.content.clone()))})
            } else {
                json!({"error": result_text(result)})
            };
            let mut function_response = json!({"name": name, "response": response});
            if !result.id.starts_with(GENERATED_ID_PREFIX) {
                function_response["id"] = Value::String(result.id.clone());
            }
            let media_parts: Vec<Value> = if result.success {
                result.blocks.iter().filter_map(inline_data).collect()
            } else {
                Vec::new()
            };
            if !media_parts.is_empty() {
                function_response["parts"] = Value::Array(media_parts);
            }
            json!({"functionResponse": function_response})
        })
        .collect();
    json!({"role": "user", "parts": parts})
}

/// The image types Gemini takes in a function response.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/webp"];

/// An `inlineData` part for `block`, when Gemini takes its kind in a function response.
fn inline_data(block: &Content) -> Option<Value> {
    let found = media(block)?;
    let plain_text = matches!(block, Content::Resource(resource)
        if matches!(resource.data, ResourceData::Blob(_)) && found.mime_type == "text/plain");
    (is_image_of(block, IMAGE_TYPES) || is_pdf(block) || plain_text)
        .then(|| json!({"inlineData": {"mimeType": found.mime_type, "data": found.base64()}}))
}
