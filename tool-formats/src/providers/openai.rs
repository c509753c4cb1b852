//! OpenAI: Chat Completions `tool_calls` and Responses `function_call` items.

use serde_json::{Value, json};

use super::{
    COMMON_IMAGE_TYPES, ProviderError, arguments_from_string, is_image_of, is_pdf, media,
    result_text, string_field,
};
use toolwright_core::Content;
use toolwright_core::ToolCall;
use toolwright_core::ToolResult;

const CHAT: &str = "OpenAI chat message";
const RESPONSES: &str = "OpenAI responses output";

/// The calls in a chat completion's assistant message: the message itself
/// (`{"role":"assistant","tool_calls":[...]}`) or a whole completion (its first choice).
///
/// `function.arguments` is a JSON string; when it is not valid JSON the call keeps the raw
/// string and fails when executed, naming the parse error. A missing id becomes `call_<n>`.
/// Calls of other kinds (custom tools) are left out.
///
/// # Errors
///
/// When the message is not an object, or `tool_calls` is not an array of objects.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::openai::parse_chat_tool_calls;
///
/// let completion = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
///     {"id": "a", "type": "function", "function": {"name": "add", "arguments": "{\"x\":1}"}},
///     {"id": "b", "type": "function", "function": {"name": "add", "arguments": "{not json"}}
/// ]}}]});
/// let calls = parse_chat_tool_calls(&completion).unwrap();
/// assert_eq!(calls[0].arguments, json!({"x": 1}));
/// assert_eq!(calls[1].arguments, json!("{not json"));
/// ```
pub fn parse_chat_tool_calls(message: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let message = match message.pointer("/choices/0/message") {
        Some(inner) => inner,
        None => message,
    };
    if !message.is_object() {
        return Err(ProviderError::new(CHAT, "", "expected a message object"));
    }
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(calls)) => calls,
        Some(_) => return Err(ProviderError::new(CHAT, "tool_calls", "expected an array")),
    };
    let mut parsed = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let path = format!("tool_calls[{index}]");
        if !call.is_object() {
            return Err(ProviderError::new(
                CHAT,
                path,
                "expected a tool call object",
            ));
        }
        if string_field(call, "type").is_some_and(|kind| kind != "function") {
            continue;
        }
        let function = call.get("function").unwrap_or(&Value::Null);
        let arguments = match function.get("arguments") {
            Some(Value::String(text)) => arguments_from_string(text),
            Some(Value::Null) | None => json!({}),
            Some(other) => other.clone(),
        };
        parsed.push(ToolCall::new(
            string_field(call, "id").map_or_else(|| format!("call_{index}"), str::to_owned),
            string_field(function, "name").unwrap_or_default(),
            arguments,
        ));
    }
    Ok(parsed)
}

/// The `function_call` items of a Responses API output: the response (`{"output":[...]}`)
/// or the output array. The call's id is its `call_id`. A call of a function in a
/// `namespace` is named `namespace.name`, which names no tool: map namespaced calls back
/// with `discovery::parse::parse_responses`.
///
/// # Errors
///
/// When the output is not an array of objects.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_formats::providers::openai::parse_responses_tool_calls;
///
/// let response = json!({"output": [
///     {"type": "message", "role": "assistant", "content": []},
///     {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": "{\"x\":2}"}
/// ]});
/// let calls = parse_responses_tool_calls(&response).unwrap();
/// assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("call_1", "add"));
/// ```
pub fn parse_responses_tool_calls(output: &Value) -> Result<Vec<ToolCall>, ProviderError> {
    let items = match output.get("output").unwrap_or(output) {
        Value::Array(items) => items,
        _ => {
            return Err(ProviderError::new(
                RESPONSES,
                "output",
                "expected an array of output items",
            ));
        }
    };
    let mut parsed = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if !item.is_object() {
            return Err(ProviderError::new(
                RESPONSES,
                format!("output[{index}]"),
                "expected an output item object",
            ));
        }
        if string_field(item, "type") != Some("function_call") {
            continue;
        }
        let id = string_field(item, "call_id")
            .or_else(|| string_field(item, "id"))
            .map_or_else(|| format!("call_{index}"), str::to_owned);
        let arguments = match item.get("arguments") {
            Some(Value::String(text)) => arguments_from_string(text),
            Some(Value::Null) | None => json!({}),
            Some(other) => other.clone(),
        };
        let name = string_field(item, "name").unwrap_or_default();
        // A function in a namespace (tool search) is `namespace.name`: no tool of ours is
        // named so, so it cannot run as the un-namespaced tool of the same name; read such
        // output with `discovery::parse::parse_responses` to map it back.
        let name = match string_field(item, "namespace") {
            Some(namespace) => format!("{namespace}.{name}"),
            None => name.to_owned(),
        };
        parsed.push(ToolCall::new(id, name, arguments));
    }
    Ok(parsed)
}

/// One `{"role":"tool","tool_call_id","content"}` message per result, for the next chat
/// request. A failure's content is its error. Tool messages take only text: a result with
/// images or other blocks sends its [`content`](ToolResult::content), where each of them is
/// a placeholder (`[image: image/png, 2048 bytes]`); use [`chat_tool_messages_with_media`]
/// to show them to the model as well.
///
/// ```
/// use toolwright_formats::providers::openai::chat_tool_messages;
/// use toolwright_core::ToolResult;
///
/// let messages = chat_tool_messages(&[ToolResult::success("call_1", "18 °C")]);
/// assert_eq!(messages[0], toolwright_core::serde_json::json!({"role": "tool", "tool_call_id": "call_1", "content": "18 °C"}));
/// ```
pub fn chat_tool_messages(results: &[ToolResult]) -> Vec<Value> {
    results
        .iter()
        .map(|result| {
            json!({
                "role": "tool",
                "tool_call_id": result.id,
                "content": result_text(result),
            })
        })
        .collect()
}

/// [`chat_tool_messages`], then, when the results hold media a chat model can read (images
/// in PNG, JPEG, GIF or WebP, WAV or MP3 sound, embedded PDFs), one `user` message with them:
/// for each such result a text part naming its call, then an `image_url` (a `data:` URL),
/// `input_audio` or `file` part per block, in order. Chat Completions requires the tool
/// messages to follow the assistant's message directly, so the media come after all of
/// them; the placeholders in the tool messages say what each was. Send audio only to a
/// model that takes audio input.
///
/// ```
/// use toolwright_formats::providers::openai::chat_tool_messages_with_media;
/// use toolwright_core::{Image, ToolOutput, ToolResult};
///
/// let output = ToolOutput::text("The chart:").block(Image::png(b"png".to_vec()));
/// let messages = chat_tool_messages_with_media(&[ToolResult::from_output("call_1", output)]);
/// assert_eq!(messages[0]["content"], "The chart:\n[image: image/png, 3 bytes]");
/// assert_eq!(messages[1]["role"], "user");
/// assert_eq!(messages[1]["content"][1]["image_url"]["url"], "data:image/png;base64,cG5n");
/// ```
pub fn chat_tool_messages_with_media(results: &[ToolResult]) -> Vec<Value> {
    let mut messages = chat_tool_messages(results);
    let mut parts = Vec::new();
    for result in results.iter().filter(|result| result.success) {
        let attached: Vec<Value> = result.blocks.iter().filter_map(chat_media_part).collect();
        if attached.is_empty() {
            continue;
        }
        parts.push(json!({
            "type": "text",
            "text": format!("The media returned by tool call `{}`, in order:", result.id),
        }));
        parts.extend(attached);
    }
    if !parts.is_empty() {
        messages.push(json!({"role": "user", "content": parts}));
    }
    messages
}

/// A chat user message part for `block`, when chat takes its kind.
fn chat_media_part(block: &Content) -> Option<Value> {
    let found = media(block)?;
    if is_image_of(block, COMMON_IMAGE_TYPES) {
        return Some(json!({"type": "image_url", "image_url": {"url": found.data_url()}}));
    }
    if let Content::Audio(audio) = block {
        let format = match audio.mime_type.as_str() {
            "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
            "audio/mpeg" | "audio/mp3" => "mp3",
            _ => return None,
        };
        return Some(
            json!({"type": "input_audio", "input_audio": {"data": found.base64(), "format": format}}),
        );
    }
    if is_pdf(block) {
        return Some(json!({"type": "file", "file": {
            "file_data": found.data_url(),
            "filename": found.name.unwrap_or("document.pdf"),
        }}));
    }
    None
}

/// One `{"type":"function_call_output","call_id","output"}` item per result, for the next
/// Responses request. The output is the result's text, or for a result with content blocks
/// a list of `input_text`, `input_image` (PNG, JPEG, GIF, WebP as a `data:` URL) and
/// `input_file` (embedded PDFs) parts, with the text placeholder of any other block.
///
/// ```
/// use toolwright_formats::providers::openai::responses_tool_outputs;
/// use toolwright_core::{Image, ToolOutput, ToolResult};
///
/// let items = responses_tool_outputs(&[ToolResult::failure("call_1", "no such city")]);
/// assert_eq!(items[0]["output"], "no such city");
///
/// let output = ToolOutput::text("Map:").block(Image::jpeg(b"jpg".to_vec()));
/// let items = responses_tool_outputs(&[ToolResult::from_output("call_2", output)]);
/// assert_eq!(items[0]["output"][1], toolwright_core::serde_json::json!({"type": "input_image", "image_url": "data:image/jpeg;base64,anBn", "detail": "auto"}));
/// ```
pub fn responses_tool_outputs(results: &[ToolResult]) -> Vec<Value> {
    results
        .iter()
        .map(|result| {
            let output = if result.success && !result.blocks.is_empty() {
                Value::Array(result.blocks.iter().map(responses_part).collect())
            } else {
                Value::String(result_text(result))
            };
            json!({
                "type": "function_call_output",
                "call_id": result.id,
                "output": output,
            })
        })
        .collect()
}

/// A Responses input content part for `block`.
fn responses_part(block: &Content) -> Value {
    if let Some(found) = media(block) {
        if is_image_of(block, COMMON_IMAGE_TYPES) {
            return json!({"type": "input_image", "image_url": found.data_url(), "detail": "auto"});
        }
        if is_pdf(block) {
            return json!({
                "type": "input_file",
                "file_data": found.data_url(),
                "filename": found.name.unwrap_or("document.pdf"),
            });
        }
    }
    json!({"type": "input_text", "text": block.text_or_placeholder()})
}
