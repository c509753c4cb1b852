//! Reading the tool calls a model API returned, and writing the results back in the shape
//! the API expects next.
//!
//! One module per API: [`openai`] (chat completions and responses), [`anthropic`],
//! [`gemini`]. Parsing is forgiving where a model can be wrong (an id that is missing, a
//! `function.arguments` string that is not JSON: that call fails when it is executed, the
//! others run) and strict only about the message's structure.
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::providers::openai;
//!
//! let message = json!({
//!     "role": "assistant",
//!     "content": null,
//!     "tool_calls": [{"id": "call_1", "type": "function",
//!                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]
//! });
//! let calls = openai::parse_chat_tool_calls(&message).unwrap();
//! assert_eq!(calls[0].name, "get_weather");
//! assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
//! ```

pub mod anthropic;
pub mod gemini;
pub mod openai;

use serde_json::{Map, Value};

use crate::call::ToolResult;

/// A provider message whose structure is not what the provider sends.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider}: {problem} at `{path}`")]
pub struct ProviderError {
    /// Which format was being read.
    pub provider: &'static str,
    /// Where in the message (`tool_calls[1].function`).
    pub path: String,
    /// What is wrong there.
    pub problem: String,
}

impl ProviderError {
    pub(crate) fn new(
        provider: &'static str,
        path: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        ProviderError {
            provider,
            path: path.into(),
            problem: problem.into(),
        }
    }
}

/// A model's `arguments` string as JSON: the object it holds (`""` is `{}`), or the string
/// itself when it is not valid JSON, so the executor fails that one call with the parse
/// error.
pub(crate) fn arguments_from_string(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// A string field of a JSON object.
pub(crate) fn string_field<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

/// The result's text for the model: its content (on failure, the error).
pub(crate) fn result_text(result: &ToolResult) -> String {
    match (&result.error, result.success) {
        (Some(error), false) => error.clone(),
        _ => result.content.clone(),
    }
}
