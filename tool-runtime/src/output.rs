//! What a tool returns, turned into the content a model reads.

use std::fmt::Display;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ToolError;

/// The result of a successful tool call: the text the model reads and, for tools that
/// return [`Json<T>`], the same value as structured JSON.
///
/// ```
/// use tool_runtime::{IntoToolOutput, ToolOutput};
///
/// let out: ToolOutput = 42_u32.into_tool_output().unwrap();
/// assert_eq!(out.content, "42");
/// assert_eq!(out.structured, None);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The text for the model.
    pub content: String,
    /// Structured output matching the tool's output schema, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// Output that is only text.
    ///
    /// ```
    /// use tool_runtime::ToolOutput;
    /// assert_eq!(ToolOutput::text("done").content, "done");
    /// ```
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            structured: None,
        }
    }

    /// Structured output; the content is its JSON text.
    ///
    /// ```
    /// use tool_runtime::ToolOutput;
    /// let out = ToolOutput::structured(serde_json::json!({"ok": true}));
    /// assert_eq!(out.content, r#"{"ok":true}"#);
    /// ```
    pub fn structured(value: Value) -> Self {
        ToolOutput {
            content: value.to_string(),
            structured: Some(value),
        }
    }
}

/// A value a tool function can return.
///
/// A `String` (or `&str`) is the content unchanged; numbers, `bool`, `()` and
/// [`serde_json::Value`] become their JSON text; [`Json<T>`] also carries structured output
/// and gives the tool an output schema; `Option<T>` is `null` when `None`; `Result<T, E>`
/// fails with `E`'s message when `Err`.
///
/// ```
/// use tool_runtime::IntoToolOutput;
///
/// assert_eq!("hi".into_tool_output().unwrap().content, "hi");
/// assert_eq!(true.into_tool_output().unwrap().content, "true");
/// assert_eq!(().into_tool_output().unwrap().content, "null");
/// let failed: Result<String, String> = Err("disk full".into());
/// assert_eq!(failed.into_tool_output().unwrap_err().to_string(), "disk full");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this type cannot be turned into a tool result",
    note = "return a `String`, `&'static str`, a number, `bool`, `()`, `serde_json::Value`, \
            `tool_runtime::Json<T>` (for any `T: Serialize + JsonSchema`), `Option<T>`, \
            or `Result<T, E>` where `E: Display`"
)]
pub trait IntoToolOutput {
    /// Turns the value into output, or into the failure it stands for.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;

    /// The JSON Schema of the structured output, if the type has one.
    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema>
    where
        Self: Sized,
    {
        let _ = generator;
        None
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl IntoToolOutput for String {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self))
    }
}

impl IntoToolOutput for std::borrow::Cow<'_, str> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.into_owned()))
    }
}

impl IntoToolOutput for Value {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(self.to_string()))
    }
}

impl IntoToolOutput for () {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("null"))
    }
}

macro_rules! json_text_output {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::text(serde_json::to_string(&self)?))
            }
        }
    )*};
}

json_text_output!(
    bool, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl<T: IntoToolOutput> IntoToolOutput for Option<T> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        match self {
            Some(value) => value.into_tool_output(),
            None => Ok(ToolOutput::text("null")),
        }
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        T::output_schema(generator)
    }
}

impl<T: IntoToolOutput, E: Display> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        match self {
            Ok(value) => value.into_tool_output(),
            Err(error) => Err(ToolError::new(error)),
        }
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        T::output_schema(generator)
    }
}

/// Structured output: the value is sent to the model as JSON text, kept as structured
/// content, and its type's JSON Schema becomes the tool's output schema.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Serialize;
/// use tool_runtime::{IntoToolOutput, Json};
///
/// #[derive(Serialize, JsonSchema)]
/// struct Weather { celsius: f64 }
///
/// let out = Json(Weather { celsius: 21.5 }).into_tool_output().unwrap();
/// assert_eq!(out.content, r#"{"celsius":21.5}"#);
/// assert_eq!(out.structured, Some(serde_json::json!({"celsius": 21.5})));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let value = serde_json::to_value(&self.0).map_err(|error| {
            ToolError::with_context("the tool's output could not be serialized to JSON", error)
        })?;
        Ok(ToolOutput::structured(value))
    }

    fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
        let mut schema = generator.root_schema_for::<T>();
        if let Some(object) = schema.as_object_mut() {
            object.remove("$schema");
            object.remove("title");
        }
        Some(schema)
    }
}
