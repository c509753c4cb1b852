//! Reading the tool calls a model API returned, and writing the results back in the shape
//! the API expects next.
//!
//! One module per API: [`openai`] (chat completions and responses), [`anthropic`],
//! [`gemini`]. Parsing is forgiving where a model can be wrong (an id that is missing, a
//! `function.arguments` string that is not JSON: that call fails when it is executed, the
//! others run) and strict only about the message's structure.
//!
//! ```
//! use toolwright_core::serde_json::json;
//! use toolwright_formats::providers::openai;
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

// The layers, lowest first (no module imports one listed after it): anthropic, gemini,
// openai.
pub mod anthropic;
pub mod gemini;
pub mod openai;

use serde_json::{Map, Value};

use toolwright_core::Content;
use toolwright_core::ResourceData;
use toolwright_core::ToolResult;

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

/// Binary media of a block the provider formats may carry: its MIME type, its bytes, and a
/// file name (an embedded resource's URI's last segment).
pub(crate) struct Media<'a> {
    pub(crate) mime_type: &'a str,
    pub(crate) data: &'a [u8],
    pub(crate) name: Option<&'a str>,
}

impl Media<'_> {
    /// The data as a `data:` URL.
    pub(crate) fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.base64())
    }

    /// The data in standard base64.
    pub(crate) fn base64(&self) -> String {
        encode_base64(self.data)
    }
}

/// The media in `block`: an image, a sound, or an embedded binary resource.
pub(crate) fn media(block: &Content) -> Option<Media<'_>> {
    match block {
        Content::Image(image) => Some(Media {
            mime_type: &image.mime_type,
            data: &image.data,
            name: None,
        }),
        Content::Audio(audio) => Some(Media {
            mime_type: &audio.mime_type,
            data: &audio.data,
            name: None,
        }),
        Content::Resource(resource) => match &resource.data {
            ResourceData::Blob(bytes) => Some(Media {
                mime_type: resource
                    .mime_type
                    .as_deref()
                    .unwrap_or("application/octet-stream"),
                data: bytes,
                name: resource.uri.rsplit('/').next().filter(|n| !n.is_empty()),
            }),
            ResourceData::Text(_) => None,
        },
        _ => None,
    }
}

/// The image formats OpenAI and Anthropic accept.
pub(crate) const COMMON_IMAGE_TYPES: &[&str] =
    &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Whether `block` is an image in one of `types`.
pub(crate) fn is_image_of(block: &Content, types: &[&str]) -> bool {
    matches!(block, Content::Image(image) if types.contains(&image.mime_type.as_str()))
}

/// Whether `block` is an embedded PDF.
pub(crate) fn is_pdf(block: &Content) -> bool {
    matches!(block, Content::Resource(resource)
        if matches!(resource.data, ResourceData::Blob(_))
            && resource.mime_type.as_deref() == Some("application/pdf"))
}

/// `bytes` as standard base64.
fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
