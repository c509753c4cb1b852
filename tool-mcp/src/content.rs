//! A `ToolResult` as MCP's `CallToolResult`: its content blocks as MCP content (`text`,
//! `image`, `audio`, `resource_link`, `resource`), its structured content, its error.

use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents};
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
pub(crate) fn content_block(block: Content) -> ContentBlock {
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
