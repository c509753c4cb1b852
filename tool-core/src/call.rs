//! A call a model asked for, and its result, in the execution contract's JSON shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;
use crate::file_change::HunkSelection;
use crate::output::{ToolOutput, content_blocks};
use crate::safety::SafetyLevel;

/// One tool call a model asked for: `{"id", "name", "arguments"}`.
///
/// `arguments` is kept as any JSON value so that a model's mistake (an array, a string)
/// becomes a failure result the model can read rather than a parse error for the whole turn.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::ToolCall;
///
/// let call = ToolCall::new("call_1", "read_file", json!({"path": "README.md"}));
/// assert_eq!(
///     serde_json::to_value(&call).unwrap(),
///     json!({"id": "call_1", "name": "read_file", "arguments": {"path": "README.md"}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id, echoed in its result.
    pub id: String,
    /// The tool to call.
    pub name: String,
    /// The arguments, normally a JSON object.
    pub arguments: Value,
}

impl ToolCall {
    /// A call of tool `name` with `arguments`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// How a call went, for the application and its logs: `{"execution_time_ms",
/// "safety_level", "approved"}` plus what lenient argument handling changed.
///
/// ```
/// use toolwright_core::ResultMetadata;
/// let metadata = ResultMetadata::default();
/// assert_eq!(serde_json::to_string(&metadata).unwrap(), r#"{"execution_time_ms":0.0}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMetadata {
    /// Wall time from receiving the call to its result, in milliseconds.
    #[serde(default)]
    pub execution_time_ms: f64,
    /// The tool's safety level; absent when no tool was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_level: Option<SafetyLevel>,
    /// Whether the policy let the call run (`false`: refused or denied); absent when the call
    /// never reached the policy (unknown tool, malformed call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved: Option<bool>,
    /// The arguments lenient mode corrected, one description each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub coerced: Vec<String>,
    /// For a call waiting for approval (`ApprovalDecision::Defer`):
    /// the token to resume it with and its expiry. For the application, not the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingApproval>,
    /// For a file edit approved hunk by hunk
    /// (`ApprovalDecision::ApprovedHunks`, or
    /// every hunk of a previewed change): which hunks the tool applied and which the
    /// approver rejected. Set on success only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hunks: Option<HunkSelection>,
}

/// The result of one call: `{"id", "success", "content", "error"?, "structured_content"?,
/// "blocks"?, "metadata"}`.
///
/// `success` and `error` agree: a success has no `error`, a failure always has one (and its
/// `content` is the same message, for clients that only show content).
///
/// `content` is always a string, as the execution contract says. A result with more than
/// one text (an image, audio, a resource, several texts) also has `blocks`: every block in
/// order (see [`Content`] for their JSON; binary data is base64), and its `content` is then
/// their text, a placeholder such as `[image: image/png, 2048 bytes]` for each block that is
/// not text. `blocks` is left out of the JSON when empty, so text results are unchanged.
///
/// ```
/// use toolwright_core::ToolResult;
///
/// let ok = ToolResult::success("call_1", "42");
/// assert!(ok.success && ok.error.is_none());
/// let failed = ToolResult::failure("call_2", "unknown tool `foo`");
/// assert_eq!(failed.error.as_deref(), Some("unknown tool `foo`"));
/// assert_eq!(failed.content, "unknown tool `foo`");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub id: String,
    /// Whether the tool ran and succeeded.
    pub success: bool,
    /// The text for the model.
    pub content: String,
    /// What went wrong, on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Structured output, for tools with an output schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Every content block in order, when the output is more than one text; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Content>,
    /// How the call went.
    #[serde(default)]
    pub metadata: ResultMetadata,
}

impl ToolResult {
    /// A successful result with `content`.
    pub fn success(id: impl Into<String>, content: impl Into<String>) -> Self {
        ToolResult {
            id: id.into(),
            success: true,
            content: content.into(),
            error: None,
            structured_content: None,
            blocks: Vec::new(),
            metadata: ResultMetadata::default(),
        }
    }

    /// The successful result of a call whose tool returned `output`: its content, structured
    /// output and blocks.
    ///
    /// ```
    /// use toolwright_core::{Image, ToolOutput, ToolResult};
    ///
    /// let result = ToolResult::from_output("call_1", ToolOutput::text("A dot:").block(Image::png(vec![1])));
    /// assert!(result.success);
    /// assert_eq!(result.blocks.len(), 2);
    /// assert_eq!(
    ///     serde_json::to_value(&result).unwrap()["blocks"][1],
    ///     serde_json::json!({"type": "image", "data": "AQ==", "mime_type": "image/png"})
    /// );
    /// ```
    pub fn from_output(id: impl Into<String>, output: ToolOutput) -> Self {
        ToolResult {
            structured_content: output.structured,
            blocks: output.blocks,
            ..ToolResult::success(id, output.content)
        }
    }

    /// A failed result with `error` (also its content).
    pub fn failure(id: impl Into<String>, error: impl Into<String>) -> Self {
        let error = error.into();
        ToolResult {
            id: id.into(),
            success: false,
            content: error.clone(),
            error: Some(error),
            structured_content: None,
            blocks: Vec::new(),
            metadata: ResultMetadata::default(),
        }
    }

    /// Whether the result is a failure.
    ///
    /// ```
    /// # use toolwright_core::ToolResult;
    /// assert!(ToolResult::failure("c", "no").is_error());
    /// ```
    pub fn is_error(&self) -> bool {
        !self.success
    }

    /// Every block of a success: `blocks`, or the content as one text block (none when it is
    /// empty). A failure is its error as one text block.
    ///
    /// ```
    /// use toolwright_core::{Content, ToolResult};
    /// assert_eq!(ToolResult::success("c", "hi").content_blocks().as_ref(), [Content::text("hi")]);
    /// assert_eq!(ToolResult::failure("c", "no").content_blocks().as_ref(), [Content::text("no")]);
    /// ```
    pub fn content_blocks(&self) -> std::borrow::Cow<'_, [Content]> {
        match (&self.error, self.success) {
            (Some(error), false) => std::borrow::Cow::Owned(vec![Content::text(error.clone())]),
            _ => content_blocks(&self.content, &self.blocks),
        }
    }
}

/// What a pending result tells the application: the token to resume the call with, and
/// until when. In [`ResultMetadata::pending`](crate::ResultMetadata::pending); the model
/// sees only the result's text.
///
/// ```
/// use toolwright_core::PendingApproval;
///
/// let pending: PendingApproval = serde_json::from_str(r#"{"token":"ab","expires_at":"2030-01-01T00:00:00Z"}"#).unwrap();
/// assert_eq!(pending.token, "ab");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingApproval {
    /// The token for `Executor::resume`.
    pub token: String,
    /// When the call stops waiting.
    pub expires_at: jiff::Timestamp,
}

impl PendingApproval {
    /// A pending call's token and expiry.
    // For toolwright-runtime (the executor defers calls; the struct is non-exhaustive); not
    // part of the API.
    #[doc(hidden)]
    pub fn new(token: String, expires_at: jiff::Timestamp) -> Self {
        PendingApproval { token, expires_at }
    }
}
