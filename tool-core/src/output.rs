//! What a tool returns, turned into the content a model reads.

use std::borrow::Cow;
use std::fmt::Display;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{Audio, Content, EmbeddedResource, Image, ResourceLink};
use crate::error::ToolError;

/// The result of a successful tool call: the text the model reads, the content blocks
/// when there is more than one text (images, audio, resources), and, for tools that return
/// [`Json<T>`], the same value as structured JSON.
///
/// `content` and `blocks` agree: `blocks` is empty when the output is one text, which is then
/// `content`; otherwise `blocks` holds every block in order and `content` is their text
/// ([`Content::text_or_placeholder`] of each, one per line) for readers that take only text.
/// The constructors and [`block`](Self::block) keep them so.
///
/// ```
/// use toolwright_core::{Image, IntoToolOutput, ToolOutput};
///
/// let out: ToolOutput = 42_u32.into_tool_output().unwrap();
/// assert_eq!(out.content, "42");
/// assert_eq!(out.structured, None);
/// assert!(out.blocks.is_empty());
///
/// let chart = ToolOutput::text("Sales by month:").block(Image::png(vec![0; 100]));
/// assert_eq!(chart.blocks.len(), 2);
/// assert_eq!(chart.content, "Sales by month:\n[image: image/png, 100 bytes]");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// The text for the model (with more than one block, every block's text or placeholder).
    pub content: String,
    /// Structured output matching the tool's output schema, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// Every block in order, when the output is more than one text; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<Content>,
}

impl ToolOutput {
    /// Output that is only text.
    ///
    /// ```
    /// use toolwright_core::ToolOutput;
    /// assert_eq!(ToolOutput::text("done").content, "done");
    /// ```
    pub fn text(content: impl Into<String>) -> Self {
        ToolOutput {
            content: content.into(),
            structured: None,
            blocks: Vec::new(),
        }
    }

    /// Structured output; the content is its JSON text.
    ///
    /// ```
    /// use toolwright_core::ToolOutput;
    /// let out = ToolOutput::structured(serde_json::json!({"ok": true}));
    /// assert_eq!(out.content, r#"{"ok":true}"#);
    /// ```
    pub fn structured(value: Value) -> Self {
        ToolOutput {
            content: value.to_string(),
            structured: Some(value),
            blocks: Vec::new(),
        }
    }

    /// Output made of `blocks`, in order.
    ///
    /// ```
    /// use toolwright_core::{Content, Image, ToolOutput};
    ///
    /// let out = ToolOutput::from_blocks([Content::text("Here:"), Image::png(vec![1, 2]).into()]);
    /// assert_eq!(out.blocks.len(), 2);
    /// // One text is plain text output.
    /// assert_eq!(ToolOutput::from_blocks(["only"]), ToolOutput::text("only"));
    /// ```
    pub fn from_blocks<B: Into<Content>>(blocks: impl IntoIterator<Item = B>) -> Self {
        let mut output = ToolOutput::default();
        output.set_blocks(blocks.into_iter().map(Into::into).collect());
        output
    }

    /// The output with `block` added after what it has (an empty text output becomes just
    /// the block).
    ///
    /// ```
    /// use toolwright_core::{Audio, Json, IntoToolOutput, ResourceLink, ToolOutput};
    ///
    /// let out = ToolOutput::structured(serde_json::json!({"seconds": 3}))
    ///     .block(Audio::wav(vec![0; 8]))
    ///     .block(ResourceLink::new("file:///take.wav", "take.wav"));
    /// assert_eq!(out.blocks.len(), 3);
    /// assert_eq!(out.structured, Some(serde_json::json!({"seconds": 3})));
    /// ```
    pub fn block(mut self, block: impl Into<Content>) -> Self {
        let mut blocks = self.content_blocks().into_owned();
        blocks.push(block.into());
        self.set_blocks(blocks);
        self
    }

    /// The output with `value` as its structured output (its text is left as it is).
    ///
    /// ```
    /// use toolwright_core::{Image, ToolOutput};
    /// let out = ToolOutput::from_blocks([Image::png(vec![7])]).with_structured(serde_json::json!({"width": 1}));
    /// assert!(out.structured.is_some());
    /// ```
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// Every block of the output: `blocks`, or the content as one text block (none when it is
    /// empty). What the provider formats send.
    ///
    /// ```
    /// use toolwright_core::{Content, ToolOutput};
    /// assert_eq!(ToolOutput::text("hi").content_blocks().as_ref(), [Content::text("hi")]);
    /// assert!(ToolOutput::text("").content_blocks().is_empty());
    /// ```
    pub fn content_blocks(&self) -> Cow<'_, [Content]> {
        content_blocks(&self.content, &self.blocks)
    }

    /// How many bytes of text and data the output carries (before base64): the blocks' or the
    /// content's, plus the structured output's JSON text when no text block is that text.
    ///
    /// ```
    /// use toolwright_core::{Image, ToolOutput};
    /// assert_eq!(ToolOutput::text("abc").byte_len(), 3);
    /// assert_eq!(ToolOutput::text("abc").block(Image::png(vec![0; 10])).byte_len(), 13);
    /// assert_eq!(ToolOutput::structured(serde_json::json!([1])).byte_len(), 3);
    /// ```
    pub fn byte_len(&self) -> usize {
        // Without copying the content: a text output is its content.
        let text: usize = if self.blocks.is_empty() {
            self.content.len()
        } else {
            self.blocks.iter().map(Content::byte_len).sum()
        };
        let structured = self.structured.as_ref().map_or(0, |value| {
            let json = value.to_string();
            let shown = if self.blocks.is_empty() {
                self.content == json
            } else {
                self.blocks
                    .iter()
                    .any(|block| block.as_text() == Some(json.as_str()))
            };
            if shown { 0 } else { json.len() }
        });
        text + structured
    }

    /// Sets the blocks and the content that goes with them.
    fn set_blocks(&mut self, blocks: Vec<Content>) {
        match blocks.as_slice() {
            [] => {
                self.content = String::new();
                self.blocks = Vec::new();
            }
            [Content::Text(text)] => {
                self.content = text.text.clone();
                self.blocks = Vec::new();
            }
            _ => {
                self.content = text_of(&blocks);
                self.blocks = blocks;
            }
        }
    }

    /// This output followed by `other`: their blocks in order, the first structured output.
    fn and(self, other: ToolOutput) -> ToolOutput {
        let mut blocks = self.content_blocks().into_owned();
        blocks.extend(other.content_blocks().iter().cloned());
        let mut output = ToolOutput {
            structured: self.structured.or(other.structured),
            ..ToolOutput::default()
        };
        output.set_blocks(blocks);
        output
    }
}

/// Every block: `blocks`, or `content` as one text block (none when empty). Shared by
/// [`ToolOutput`] and [`ToolResult`](crate::ToolResult).
pub(crate) fn content_blocks<'a>(content: &'a str, blocks: &'a [Content]) -> Cow<'a, [Content]> {
    if !blocks.is_empty() {
        Cow::Borrowed(blocks)
    } else if content.is_empty() {
        Cow::Owned(Vec::new())
    } else {
        Cow::Owned(vec![Content::text(content)])
    }
}

/// The text of `blocks` for a reader that takes only text: each block's text or placeholder,
/// one per line.
pub(crate) fn text_of(blocks: &[Content]) -> String {
    blocks
        .iter()
        .map(|block| block.text_or_placeholder())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A value a tool function can return.
///
/// A `String` (or `&str`) is the content unchanged; numbers, `bool`, `()` and
/// [`serde_json::Value`] become their JSON text; [`Json<T>`] also carries structured output
/// and gives the tool an output schema; `Option<T>` is `null` when `None`; `Result<T, E>`
/// fails with `E`'s message when `Err`. Content blocks: [`Image`], [`Audio`],
/// [`ResourceLink`], [`EmbeddedResource`], [`Content`] and `Vec<Content>`; a tuple of up to
/// four of any of these is their blocks in order (a tuple's structured output and output
/// schema are those of its first element that has them, so put at most one `Json<T>` in
/// it). [`ToolOutput`] itself for anything else.
///
/// ```
/// use toolwright_core::{Image, IntoToolOutput, Json};
///
/// let out = ("A red pixel:", Image::png(vec![0x89, b'P', b'N', b'G'])).into_tool_output().unwrap();
/// assert_eq!(out.blocks.len(), 2);
/// let out = (Json(serde_json::json!({"w": 1})), Image::png(vec![1])).into_tool_output().unwrap();
/// assert_eq!(out.structured, Some(serde_json::json!({"w": 1})));
/// ```
///
/// ```
/// use toolwright_core::IntoToolOutput;
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
            `Json<T>` (for any `T: Serialize + JsonSchema`, e.g. a type with `#[tool_type]`), \
            content blocks (`Image`, `Audio`, `ResourceLink`, `EmbeddedResource`, `Content`, \
            `Vec<Content>`, or a tuple of outputs), `Option<T>`, or `Result<T, E>` where \
            `E: Display`",
    note = "`Json` and the blocks are in the tool model of the crate you took `#[tool]` from \
            (its `model` module in the facade, the crate root in the core)"
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

json_text_output!(char, f32, f64);

// Integers and booleans: their `Display` text is their JSON text, written without serde's
// serializer and at its exact length (every call of a tool that returns a count).
macro_rules! display_text_output {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::text(self.to_string()))
            }
        }
    )*};
}

display_text_output!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
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
/// use toolwright_core::{IntoToolOutput, Json};
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

macro_rules! block_output {
    ($($ty:ty),* $(,)?) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
                Ok(ToolOutput::from_blocks([Content::from(self)]))
            }
        }
    )*};
}

block_output!(Content, Image, Audio, ResourceLink, EmbeddedResource);

impl IntoToolOutput for Vec<Content> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::from_blocks(self))
    }
}

macro_rules! tuple_output {
    ($first:ident $(, $rest:ident)+) => {
        impl<$first: IntoToolOutput $(, $rest: IntoToolOutput)+> IntoToolOutput for ($first, $($rest),+) {
            #[allow(non_snake_case)]
            fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
                let ($first, $($rest),+) = self;
                let output = $first.into_tool_output()?;
                $(let output = output.and($rest.into_tool_output()?);)+
                Ok(output)
            }

            fn output_schema(generator: &mut SchemaGenerator) -> Option<Schema> {
                $first::output_schema(generator)$(.or_else(|| $rest::output_schema(generator)))+
            }
        }
    };
}

tuple_output!(A, B);
tuple_output!(A, B, C);
tuple_output!(A, B, C, D);

#[cfg(test)]
mod tests {
    use super::IntoToolOutput;

    fn text(output: impl IntoToolOutput) -> String {
        output
            .into_tool_output()
            .map(|out| out.content)
            .unwrap_or_default()
    }

    #[test]
    fn integers_and_booleans_read_as_their_json() {
        let json = |value: serde_json::Value| value.to_string();
        assert_eq!(text(i64::MIN), json(i64::MIN.into()));
        assert_eq!(text(u64::MAX), json(u64::MAX.into()));
        assert_eq!(text(-7i8), json((-7i8).into()));
        assert_eq!(text(42usize), json(42usize.into()));
        assert_eq!(text(true), json(true.into()));
        assert_eq!(text(u128::MAX), serde_json::to_string(&u128::MAX).unwrap());
        assert_eq!(text(i128::MIN), serde_json::to_string(&i128::MIN).unwrap());
    }
}
