//! The blocks a tool's output is made of: text, images, audio, links to resources and
//! resources embedded whole.
//!
//! Binary data is kept as bytes and written as standard base64 (with padding) in JSON, so a
//! [`ToolResult`](crate::ToolResult) reads back as itself. Each provider format turns the
//! blocks into what it accepts (`providers`, and `toolwright-mcp` for MCP); a block a format cannot
//! carry becomes the text of [`Content::text_or_placeholder`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// One block of a tool's output.
///
/// In a [`ToolResult`](crate::ToolResult)'s JSON (its `blocks` field) each block is an object
/// with a `type`: `{"type": "text", "text"}`, `{"type": "image", "data", "mime_type"}`,
/// `{"type": "audio", "data", "mime_type"}`, `{"type": "resource_link", "uri", "name",
/// "mime_type"?, "description"?, "size"?}`, `{"type": "resource", "uri", "mime_type"?,
/// "text" | "blob"}`; `data` and `blob` are base64.
///
/// ```
/// use serde_json::json;
/// use toolwright_core::{Content, Image};
///
/// let block = Content::from(Image::png(vec![0x89, b'P', b'N', b'G']));
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     json!({"type": "image", "data": "iVBORw==", "mime_type": "image/png"})
/// );
/// assert_eq!(block.text_or_placeholder(), "[image: image/png, 4 bytes]");
/// ```
///
/// The example of [`tool`](crate::tool#returning-images-and-other-content)'s "Returning images
/// and other content":
///
/// ```rust,standalone_crate
/// use toolwright_core::{tool, Content, EmbeddedResource, Image, IntoToolOutput, Json, ResourceLink, ToolOutput};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct ChartInfo { points: usize }
///
/// fn render(_numbers: &[f64]) -> Vec<u8> {
///     vec![0x89, b'P', b'N', b'G'] // a real chart library here
/// }
///
/// /// Draw a chart of the numbers.
/// #[tool]
/// fn draw_chart(numbers: Vec<f64>) -> (String, Image, Json<ChartInfo>) {
///     let png = render(&numbers);
///     (format!("{} points:", numbers.len()), Image::png(png), Json(ChartInfo { points: numbers.len() }))
/// }
///
/// /// Find the reports of a year.
/// #[tool]
/// fn find_reports(year: u32) -> Vec<Content> {
///     vec![
///         Content::text(format!("Reports of {year}:")),
///         ResourceLink::new(format!("file:///reports/{year}.pdf"), format!("{year}.pdf"))
///             .with_mime_type("application/pdf")
///             .into(),
///         EmbeddedResource::text("file:///reports/README", "One PDF per year.").into(),
///     ]
/// }
///
/// /// The same with the builder, for anything else.
/// #[tool]
/// fn snapshot() -> ToolOutput {
///     ToolOutput::text("The screen now:").block(Image::png(render(&[])))
/// }
///
/// fn main() {
///     let out = draw_chart(vec![1.0]).into_tool_output().unwrap();
///     assert_eq!(out.content, "1 points:\n[image: image/png, 4 bytes]\n{\"points\":1}");
///     assert_eq!(out.blocks.len(), 3);
///     assert_eq!(out.structured, Some(serde_json::json!({"points": 1})));
///     assert_eq!(find_reports(2024).into_tool_output().unwrap().blocks.len(), 3);
///     assert_eq!(snapshot().blocks.len(), 2);
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text for the model.
    Text(Text),
    /// An image.
    Image(Image),
    /// A sound.
    Audio(Audio),
    /// A link to a resource the client can fetch (MCP `resource_link`).
    ResourceLink(ResourceLink),
    /// A resource sent whole, text or binary (MCP `resource`).
    Resource(EmbeddedResource),
}

/// A text block: what [`Content::text`] makes.
///
/// ```
/// use toolwright_core::Content;
/// assert_eq!(Content::text("done").as_text(), Some("done"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Text {
    /// The text.
    pub text: String,
}

/// An image: its bytes and MIME type.
///
/// Providers take different formats (Anthropic and OpenAI: PNG, JPEG, GIF, WebP; Gemini:
/// PNG, JPEG, WebP); an image in another format reaches the model as a placeholder text.
///
/// ```
/// use toolwright_core::Image;
/// let image = Image::new(vec![1, 2, 3], "image/webp");
/// assert_eq!((image.data.len(), image.mime_type.as_str()), (3, "image/webp"));
/// assert_eq!(Image::jpeg(vec![0xff, 0xd8]).mime_type, "image/jpeg");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Image {
    /// The encoded image (PNG, JPEG, ...), not base64.
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
    /// Its MIME type, e.g. `image/png`.
    pub mime_type: String,
}

impl Image {
    /// An image of any MIME type.
    pub fn new(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// A PNG image.
    ///
    /// ```
    /// assert_eq!(toolwright_core::Image::png(vec![]).mime_type, "image/png");
    /// ```
    pub fn png(data: impl Into<Vec<u8>>) -> Self {
        Image::new(data, "image/png")
    }

    /// A JPEG image.
    pub fn jpeg(data: impl Into<Vec<u8>>) -> Self {
        Image::new(data, "image/jpeg")
    }

    /// A GIF image.
    pub fn gif(data: impl Into<Vec<u8>>) -> Self {
        Image::new(data, "image/gif")
    }

    /// A WebP image.
    pub fn webp(data: impl Into<Vec<u8>>) -> Self {
        Image::new(data, "image/webp")
    }

    /// The image's bytes in standard base64.
    ///
    /// ```
    /// assert_eq!(toolwright_core::Image::png(b"hi".to_vec()).data_base64(), "aGk=");
    /// ```
    pub fn data_base64(&self) -> String {
        encode_base64(&self.data)
    }

    /// The image as a `data:` URL (`data:image/png;base64,...`).
    ///
    /// ```
    /// assert_eq!(toolwright_core::Image::png(b"hi".to_vec()).data_url(), "data:image/png;base64,aGk=");
    /// ```
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.mime_type, self.data_base64())
    }
}

/// A sound: its bytes and MIME type. Of the providers, only MCP carries audio in a tool
/// result; the others get a placeholder text.
///
/// ```
/// use toolwright_core::Audio;
/// assert_eq!(Audio::wav(vec![0; 44]).mime_type, "audio/wav");
/// assert_eq!(Audio::new(vec![], "audio/ogg").mime_type, "audio/ogg");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Audio {
    /// The encoded sound, not base64.
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
    /// Its MIME type, e.g. `audio/wav`.
    pub mime_type: String,
}

impl Audio {
    /// A sound of any MIME type.
    pub fn new(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// A WAV sound.
    pub fn wav(data: impl Into<Vec<u8>>) -> Self {
        Audio::new(data, "audio/wav")
    }

    /// An MP3 sound.
    pub fn mp3(data: impl Into<Vec<u8>>) -> Self {
        Audio::new(data, "audio/mpeg")
    }

    /// The sound's bytes in standard base64.
    ///
    /// ```
    /// assert_eq!(toolwright_core::Audio::wav(b"hi".to_vec()).data_base64(), "aGk=");
    /// ```
    pub fn data_base64(&self) -> String {
        encode_base64(&self.data)
    }
}

/// A link to a resource (a file, a record, a page) the client can fetch or show, instead of
/// its contents.
///
/// ```
/// use toolwright_core::ResourceLink;
///
/// let link = ResourceLink::new("file:///reports/q3.pdf", "q3.pdf")
///     .with_mime_type("application/pdf")
///     .with_description("The third quarter's report")
///     .with_size(48_213);
/// assert_eq!(link.mime_type.as_deref(), Some("application/pdf"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResourceLink {
    /// Where the resource is.
    pub uri: String,
    /// Its name, e.g. a file name.
    pub name: String,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// What it is, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its size in bytes, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl ResourceLink {
    /// A link to `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            mime_type: None,
            description: None,
            size: None,
        }
    }

    /// With the resource's MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a description of the resource.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With the resource's size in bytes.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }
}

/// A resource sent whole: its URI, MIME type and contents (text or bytes).
///
/// ```
/// use toolwright_core::{EmbeddedResource, ResourceData};
///
/// let notes = EmbeddedResource::text("file:///notes.md", "# Notes").with_mime_type("text/markdown");
/// assert_eq!(notes.data, ResourceData::Text("# Notes".into()));
/// let pdf = EmbeddedResource::blob("file:///a.pdf", vec![b'%'; 4], "application/pdf");
/// assert_eq!(pdf.mime_type.as_deref(), Some("application/pdf"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its contents: `"text"` or `"blob"` (base64) in JSON.
    #[serde(flatten)]
    pub data: ResourceData,
}

/// The contents of an [`EmbeddedResource`].
///
/// ```
/// use toolwright_core::ResourceData;
/// assert_eq!(ResourceData::Blob(vec![1, 2]).len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceData {
    /// Text (UTF-8).
    Text(String),
    /// Bytes.
    Blob(#[serde(with = "base64_bytes")] Vec<u8>),
}

impl ResourceData {
    /// Its size in bytes.
    pub fn len(&self) -> usize {
        match self {
            ResourceData::Text(text) => text.len(),
            ResourceData::Blob(bytes) => bytes.len(),
        }
    }

    /// Whether it is empty.
    ///
    /// ```
    /// assert!(toolwright_core::ResourceData::Text(String::new()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A blob's bytes in standard base64; `None` for text.
    ///
    /// ```
    /// use toolwright_core::ResourceData;
    /// assert_eq!(ResourceData::Blob(b"hi".to_vec()).blob_base64().as_deref(), Some("aGk="));
    /// assert_eq!(ResourceData::Text("hi".into()).blob_base64(), None);
    /// ```
    pub fn blob_base64(&self) -> Option<String> {
        match self {
            ResourceData::Blob(bytes) => Some(encode_base64(bytes)),
            ResourceData::Text(_) => None,
        }
    }
}

impl EmbeddedResource {
    /// A text resource (MIME type `text/plain` unless set with
    /// [`with_mime_type`](Self::with_mime_type)).
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some("text/plain".to_owned()),
            data: ResourceData::Text(text.into()),
        }
    }

    /// A binary resource.
    pub fn blob(
        uri: impl Into<String>,
        data: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            data: ResourceData::Blob(data.into()),
        }
    }

    /// With the resource's MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(Text { text: text.into() })
    }

    /// An image block.
    ///
    /// ```
    /// use toolwright_core::Content;
    /// assert!(matches!(Content::image(vec![1], "image/gif"), Content::Image(_)));
    /// ```
    pub fn image(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Content::Image(Image::new(data, mime_type))
    }

    /// An audio block.
    pub fn audio(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
        Content::Audio(Audio::new(data, mime_type))
    }

    /// A link to the resource at `uri`, called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink(ResourceLink::new(uri, name))
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(&text.text),
            _ => None,
        }
    }

    /// How many bytes of text or data the block carries (before base64): what the
    /// executor's `max_output_bytes` counts.
    ///
    /// ```
    /// use toolwright_core::Content;
    /// assert_eq!(Content::image(vec![0; 10], "image/png").byte_len(), 10);
    /// assert_eq!(Content::text("héllo").byte_len(), 6);
    /// ```
    pub fn byte_len(&self) -> usize {
        match self {
            Content::Text(text) => text.text.len(),
            Content::Image(image) => image.data.len(),
            Content::Audio(audio) => audio.data.len(),
            Content::ResourceLink(link) => link.uri.len() + link.name.len(),
            Content::Resource(resource) => resource.data.len(),
        }
    }

    /// The block as text, for a reader that takes only text: a text block's text, an
    /// embedded text resource's text under a line naming it, and a bracketed placeholder
    /// for the rest (`[image: image/png, 1024 bytes]`, `[resource link: q3.pdf
    /// <file:///q3.pdf> (application/pdf)]`).
    ///
    /// ```
    /// use toolwright_core::{Content, EmbeddedResource, ResourceLink};
    ///
    /// assert_eq!(Content::text("hi").text_or_placeholder(), "hi");
    /// assert_eq!(Content::audio(vec![0; 3], "audio/wav").text_or_placeholder(), "[audio: audio/wav, 3 bytes]");
    /// let link = ResourceLink::new("file:///q3.pdf", "q3.pdf").with_mime_type("application/pdf");
    /// assert_eq!(Content::from(link).text_or_placeholder(), "[resource link: q3.pdf <file:///q3.pdf> (application/pdf)]");
    /// let notes = EmbeddedResource::text("file:///n.txt", "line");
    /// assert_eq!(Content::from(notes).text_or_placeholder(), "[resource: file:///n.txt (text/plain)]\nline");
    /// ```
    pub fn text_or_placeholder(&self) -> Cow<'_, str> {
        match self {
            Content::Text(text) => Cow::Borrowed(&text.text),
            Content::Image(image) => Cow::Owned(format!(
                "[image: {}, {} bytes]",
                image.mime_type,
                image.data.len()
            )),
            Content::Audio(audio) => Cow::Owned(format!(
                "[audio: {}, {} bytes]",
                audio.mime_type,
                audio.data.len()
            )),
            Content::ResourceLink(link) => {
                let mut text = format!("[resource link: {} <{}>", link.name, link.uri);
                if let Some(mime_type) = &link.mime_type {
                    text.push_str(&format!(" ({mime_type})"));
                }
                if let Some(description) = &link.description {
                    text.push_str(&format!(": {description}"));
                }
                text.push(']');
                Cow::Owned(text)
            }
            Content::Resource(resource) => {
                let kind = resource.mime_type.as_deref().unwrap_or("unknown type");
                Cow::Owned(match &resource.data {
                    ResourceData::Text(text) => {
                        format!("[resource: {} ({kind})]\n{text}", resource.uri)
                    }
                    ResourceData::Blob(bytes) => {
                        format!(
                            "[resource: {} ({kind}, {} bytes)]",
                            resource.uri,
                            bytes.len()
                        )
                    }
                })
            }
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

impl From<Image> for Content {
    fn from(image: Image) -> Self {
        Content::Image(image)
    }
}

impl From<Audio> for Content {
    fn from(audio: Audio) -> Self {
        Content::Audio(audio)
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Self {
        Content::ResourceLink(link)
    }
}

impl From<EmbeddedResource> for Content {
    fn from(resource: EmbeddedResource) -> Self {
        Content::Resource(resource)
    }
}

/// Bytes as standard base64 in JSON.
pub(crate) mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        STANDARD
            .decode(text.as_bytes())
            .map_err(|error| serde::de::Error::custom(format!("invalid base64 data: {error}")))
    }
}

/// `bytes` as standard base64.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
