//! One parameter of a tool, as the model sees it: name, description, schema, default.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One parameter of a tool, as the model sees it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use toolwright_core::tool;
///
/// /// Repeat a word.
/// #[tool]
/// fn repeat(
///     /// The word to repeat
///     word: String,
///     /// How many times
///     #[arg(default = 2)]
///     times: u32,
/// ) -> String {
///     word.repeat(times as usize)
/// }
///
/// let tool = toolwright_core::linked_tools().find(|t| t.name() == "repeat").unwrap();
/// let times = &tool.params()[1];
/// assert_eq!(times.name(), "times");
/// assert_eq!(times.description(), Some("How many times"));
/// assert!(!times.is_required());
/// assert_eq!(times.default_value(), Some(&serde_json::json!(2)));
/// assert_eq!(times.expected_type(), "integer >= 0");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamInfo {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    required: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    secret: bool,
    schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default: Option<Value>,
    expected: String,
}

impl ParamInfo {
    /// The parameter's name in the JSON arguments.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameter's description, from its doc comment or `#[arg(description = "...")]`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Whether the model must send it.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// Whether its value is redacted from logs and approval requests (`#[arg(secret)]`).
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// The parameter's JSON Schema (as it appears under `properties`).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The default used when the parameter is absent, when it can be shown as JSON.
    pub fn default_value(&self) -> Option<&Value> {
        self.default.as_ref()
    }

    /// What the parameter accepts, in a few words (`string`, `array of integer`).
    pub fn expected_type(&self) -> &str {
        &self.expected
    }

    pub(crate) fn new(
        name: &str,
        description: Option<&str>,
        required: bool,
        secret: bool,
        schema: Value,
        default: Option<Value>,
    ) -> Self {
        ParamInfo {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            required,
            secret,
            schema,
            default,
            expected: String::new(),
        }
    }

    /// The same parameter sent in the HTTP header `Mcp-Param-<header>` too (its schema
    /// gains SEP-2243's `x-mcp-header`); what `#[arg(header = "...")]` expands to.
    // For the macros (`#[arg(header)]`); not part of the API.
    #[doc(hidden)]
    #[must_use]
    pub fn with_header(mut self, header: &str) -> Self {
        if let Value::Object(schema) = &mut self.schema {
            schema.insert(
                crate::mcp_header::KEYWORD.to_owned(),
                Value::String(header.to_owned()),
            );
        }
        self
    }

    /// The same parameter with `expected` as its [`expected_type`](Self::expected_type).
    pub(crate) fn with_expected_type(mut self, expected: String) -> Self {
        self.expected = expected;
        self
    }
}
