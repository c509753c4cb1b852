//! Tools that return images, audio and resources, called through rmcp's client: each block
//! arrives as MCP's own content type, with the bytes in base64.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, ContentBlock, ResourceContents};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceExt, model::ClientConfig};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;
use toolwright_core::{Audio, Content, EmbeddedResource, Image, Json, ResourceLink, tool};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, register_all_tools};

/// The size of a picture.
#[derive(Serialize, JsonSchema)]
struct Size {
    /// Width in pixels.
    width: u32,
}

/// Draw a chart: a caption, the picture, and its size.
#[tool]
fn draw_chart() -> (&'static str, Image, Json<Size>) {
    (
        "Sales by month:",
        Image::png(b"\x89PNG".to_vec()),
        Json(Size { width: 1 }),
    )
}

/// Record a sound.
#[tool]
fn record_sound() -> Audio {
    Audio::wav(b"RIFF".to_vec())
}

/// Every other kind of block.
#[tool]
fn gather_resources() -> Vec<Content> {
    vec![
        ResourceLink::new("file:///reports/q3.pdf", "q3.pdf")
            .with_mime_type("application/pdf")
            .with_description("The report")
            .with_size(4)
            .into(),
        EmbeddedResource::text("file:///notes.md", "# Notes")
            .with_mime_type("text/markdown")
            .into(),
        EmbeddedResource::blob(
            "file:///data.bin",
            b"\x00\x01".to_vec(),
            "application/octet-stream",
        )
        .into(),
    ]
}

#[tokio::test]
async fn every_block_type_arrives_as_its_mcp_content_type() {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    let http = McpServer::new(executor)
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap();
    let client = ClientConfig::default()
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap();

    let chart = client
        .call_tool(CallToolRequestParams::new("draw_chart"))
        .await
        .unwrap();
    assert_eq!(chart.is_error, Some(false));
    assert_eq!(chart.content.len(), 3, "{chart:?}");
    assert_eq!(chart.content[0].as_text().unwrap().text, "Sales by month:");
    let image = chart.content[1].as_image().unwrap();
    assert_eq!(
        (image.data.as_str(), image.mime_type.as_str()),
        ("iVBORw==", "image/png")
    );
    assert_eq!(chart.content[2].as_text().unwrap().text, r#"{"width":1}"#);
    assert_eq!(chart.structured_content, Some(json!({"width": 1})));

    let sound = client
        .call_tool(CallToolRequestParams::new("record_sound"))
        .await
        .unwrap();
    let audio = sound.content[0].as_audio().unwrap();
    assert_eq!(
        (audio.data.as_str(), audio.mime_type.as_str()),
        ("UklGRg==", "audio/wav")
    );
    assert_eq!(sound.structured_content, None);

    let resources = client
        .call_tool(CallToolRequestParams::new("gather_resources"))
        .await
        .unwrap();
    let link = resources.content[0].as_resource_link().unwrap();
    assert_eq!(
        (link.uri.as_str(), link.name.as_str()),
        ("file:///reports/q3.pdf", "q3.pdf")
    );
    assert_eq!(link.mime_type.as_deref(), Some("application/pdf"));
    assert_eq!(link.description.as_deref(), Some("The report"));
    assert_eq!(link.size, Some(4));
    let ContentBlock::Resource(notes) = &resources.content[1] else {
        panic!("{resources:?}");
    };
    assert_eq!(
        notes.resource,
        ResourceContents::TextResourceContents {
            uri: "file:///notes.md".into(),
            mime_type: Some("text/markdown".into()),
            text: "# Notes".into(),
            meta: None,
        }
    );
    let ContentBlock::Resource(data) = &resources.content[2] else {
        panic!("{resources:?}");
    };
    assert_eq!(
        data.resource,
        ResourceContents::BlobResourceContents {
            uri: "file:///data.bin".into(),
            mime_type: Some("application/octet-stream".into()),
            blob: "AAE=".into(),
            meta: None,
        }
    );

    client.cancel().await.unwrap();
    http.shutdown();
}
