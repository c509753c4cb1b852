//! A `ToolResult` as MCP's `CallToolResult`: its content blocks as MCP content (`text`,
//! `image`, `audio`, `resource_link`, `resource`), its structured content, its error.

use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents};
#[cfg(feature = "upstream")]
use toolwright_core::ToolOutput;
use toolwright_core::{Content, ResourceData, ToolResult};

/// The MCP answer to a call that ended with `result`. `structured` says whether to attach
/// the structured content (only tools that declare an object output schema may).
pub(crate) fn call_tool_result(result: ToolResult, structured: bool) -> CallToolResult {
    if !result.success {
        return CallToolResult::error(vec![ContentBlock::text(
            result.error.unwrap_or(result.content),
        )]);
    }
    let blocks = if result.blocks.is_empty() {
        vec![ContentBlock::text(result.content)]
    } else {
        result.blocks.into_iter().map(content_block).collect()
    };
    let mut response = CallToolResult::success(blocks);
    if structured {
        response.structured_content = result.structured_content;
    }
    response
}

/// One block in MCP's form.
fn content_block(block: Content) -> ContentBlock {
    match block {
        Content::Image(image) => ContentBlock::image(image.data_base64(), image.mime_type),
        Content::Audio(audio) => ContentBlock::audio(audio.data_base64(), audio.mime_type),
        Content::ResourceLink(link) => {
            let mut resource = Resource::new(link.uri, link.name);
            if let Some(mime_type) = link.mime_type {
                resource = resource.with_mime_type(mime_type);
            }
            if let Some(description) = link.description {
                resource = resource.with_description(description);
            }
            if let Some(size) = link.size {
                resource = resource.with_size(size);
            }
            ContentBlock::resource_link(resource)
        }
        Content::Resource(resource) => {
            let blob = resource.data.blob_base64();
            let contents = match (resource.data, blob) {
                (ResourceData::Text(text), _) => ResourceContents::TextResourceContents {
                    uri: resource.uri,
                    mime_type: resource.mime_type,
                    text,
                    meta: None,
                },
                (_, blob) => ResourceContents::BlobResourceContents {
                    uri: resource.uri,
                    mime_type: resource.mime_type,
                    blob: blob.unwrap_or_default(),
                    meta: None,
                },
            };
            ContentBlock::resource(contents)
        }
        // Text, and any kind of block added later: its text or placeholder.
        other => ContentBlock::text(other.text_or_placeholder().into_owned()),
    }
}

/// What an upstream server answered to a `tools/call`, as our output: every block as it
/// came (images, audio and blobs decoded from base64, so they go out as the same bytes),
/// the structured content with them. `isError: true` is the upstream's text as the error.
#[cfg(feature = "upstream")]
pub(crate) fn from_upstream(result: CallToolResult) -> Result<ToolOutput, String> {
    if result.is_error == Some(true) {
        let text: Vec<String> = result
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => text.text.clone(),
                _ => "[a non-text block]".to_owned(),
            })
            .collect();
        let text = text.join("\n");
        return Err(if text.trim().is_empty() {
            "it failed without saying why".to_owned()
        } else {
            text
        });
    }
    let mut blocks = Vec::with_capacity(result.content.len());
    for (i, block) in result.content.into_iter().enumerate() {
        blocks.push(from_block(block).map_err(|reason| format!("block {i}: {reason}"))?);
    }
    let output = if blocks.is_empty() {
        match &result.structured_content {
            Some(value) => ToolOutput::text(value.to_string()),
            None => ToolOutput::text(""),
        }
    } else {
        ToolOutput::from_blocks(blocks)
    };
    Ok(match result.structured_content {
        Some(value) => output.with_structured(value),
        None => output,
    })
}

/// One upstream block as ours.
#[cfg(feature = "upstream")]
fn from_block(block: ContentBlock) -> Result<Content, String> {
    use toolwright_core::{Audio, EmbeddedResource, Image, ResourceLink};
    let decode = |data: &str, what: &str| {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(data.as_bytes())
            .map_err(|e| format!("its {what} is not base64: {e}"))
    };
    Ok(match block {
        ContentBlock::Text(text) => Content::text(text.text),
        ContentBlock::Image(image) => {
            Image::new(decode(&image.data, "image data")?, image.mime_type).into()
        }
        ContentBlock::Audio(audio) => {
            Audio::new(decode(&audio.data, "audio data")?, audio.mime_type).into()
        }
        ContentBlock::ResourceLink(resource) => {
            let mut link = ResourceLink::new(resource.uri, resource.name);
            if let Some(mime_type) = resource.mime_type {
                link = link.with_mime_type(mime_type);
            }
            if let Some(description) = resource.description {
                link = link.with_description(description);
            }
            if let Some(size) = resource.size {
                link = link.with_size(size);
            }
            link.into()
        }
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => {
                let mut resource = EmbeddedResource::text(uri, text);
                resource.mime_type = mime_type;
                resource.into()
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let data = decode(&blob, "blob")?;
                let mut resource = EmbeddedResource::blob(uri, data, "");
                resource.mime_type = mime_type;
                resource.into()
            }
            _ => return Err("an unknown kind of embedded resource".to_owned()),
        },
        _ => return Err("an unknown kind of content block".to_owned()),
    })
}
