//! What an upstream server answered to a `tools/call`, as our output: its content blocks
//! (text, image, audio, resource links, embedded resources) as they were sent, its
//! structured content, its error.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use toolwright_core::{Content, ToolOutput};

use super::uris::mounted_uri;

/// What an upstream server answered to a `tools/call`, as our output: every block as it
/// came (images, audio and blobs decoded from base64, so they go out as the same bytes),
/// the structured content with them. `isError: true` is the upstream's text as the error.
///
/// With `namespace`, the URIs of resource links and embedded resources are placed in it (as
/// the mount's resources are: [`mounted_uri`]), so a client can read them through us and an
/// upstream cannot point it at ours; a URI that cannot be placed stays as it was.
pub(super) fn from_upstream(
    result: CallToolResult,
    namespace: Option<&str>,
) -> Result<ToolOutput, String> {
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
        let mut block = from_block(block).map_err(|reason| format!("block {i}: {reason}"))?;
        if let Some(namespace) = namespace {
            // Placed when it can be; as it was otherwise (never an error).
            drop(rewrite_uris(&mut block, |uri| {
                Some(mounted_uri(namespace, uri).unwrap_or_else(|| uri.to_owned()))
            }));
        }
        blocks.push(block);
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

/// The URIs a block names (a resource link's, an embedded resource's) rewritten by `to`;
/// `None` from it refuses the block (a URI that cannot be placed in the namespace).
pub(super) fn rewrite_uris(
    content: &mut Content,
    to: impl Fn(&str) -> Option<String>,
) -> Result<(), String> {
    let uri = match content {
        Content::ResourceLink(link) => &mut link.uri,
        Content::Resource(resource) => &mut resource.uri,
        _ => return Ok(()),
    };
    *uri = to(uri).ok_or_else(|| {
        format!(
            "it names the resource `{}`, which cannot be placed in the namespace",
            toolwright_names::escape::escape(uri)
        )
    })?;
    Ok(())
}

/// One upstream block as ours.
pub(super) fn from_block(block: ContentBlock) -> Result<Content, String> {
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
