//! Content blocks through `Tool::call` and the executor, the output size limit, and the
//! check of structured output against the output schema.

use serde_json::{Value, json};
use toolwright::ToolResult;
use toolwright::model::{Content, ResourceData};

use crate::tools::{assert_contract_result, call, executor, registry, runs};

fn object(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap()
}

#[tokio::test]
async fn every_block_type_comes_out_of_tool_call_in_order() {
    let tool = registry().get("every_block").unwrap();
    let output = tool
        .call(object(json!({"key": "blocks-call"})))
        .await
        .unwrap();
    let kinds: Vec<&str> = output
        .blocks
        .iter()
        .map(|block| match block {
            Content::Text(_) => "text",
            Content::Image(_) => "image",
            Content::Audio(_) => "audio",
            Content::ResourceLink(_) => "resource_link",
            Content::Resource(resource) => match resource.data {
                ResourceData::Text(_) => "resource text",
                ResourceData::Blob(_) => "resource blob",
            },
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource_link",
            "resource text",
            "resource blob"
        ]
    );
    assert_eq!(
        output.content,
        "all of them:\n[image: image/jpeg, 2 bytes]\n[audio: audio/mpeg, 3 bytes]\n\
         [resource link: r.pdf <file:///r.pdf> (application/pdf)]\n\
         [resource: file:///n.txt (text/plain)]\nnotes\n\
         [resource: file:///r.pdf (application/pdf, 4 bytes)]"
    );
    assert_eq!(output.structured, None);
    assert_eq!(tool.output_schema(), None);
}

#[tokio::test]
async fn results_carry_the_blocks_in_the_contract_shape() {
    let executor = executor().build();
    let result = executor
        .execute(call("b1", "every_block", json!({"key": "blocks-exec"})))
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.blocks.len(), 6);
    assert_contract_result(&result);
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(
        value["blocks"][0],
        json!({"type": "text", "text": "all of them:"})
    );
    assert_eq!(
        value["blocks"][1],
        json!({"type": "image", "data": "/9g=", "mime_type": "image/jpeg"})
    );
    assert_eq!(
        value["blocks"][2],
        json!({"type": "audio", "data": "SUQz", "mime_type": "audio/mpeg"})
    );
    assert_eq!(
        value["blocks"][3],
        json!({"type": "resource_link", "uri": "file:///r.pdf", "name": "r.pdf", "mime_type": "application/pdf"})
    );
    assert_eq!(
        value["blocks"][4],
        json!({"type": "resource", "uri": "file:///n.txt", "mime_type": "text/plain", "text": "notes"})
    );
    assert_eq!(
        value["blocks"][5],
        json!({"type": "resource", "uri": "file:///r.pdf", "mime_type": "application/pdf", "blob": "JVBERg=="})
    );
    assert!(value["content"].is_string());

    // Text results have no `blocks` in their JSON.
    let text = executor
        .execute(call(
            "t",
            "read_number",
            json!({"key": "blocks-text", "n": 5}),
        ))
        .await;
    assert!(text.blocks.is_empty());
    assert!(serde_json::to_value(&text).unwrap().get("blocks").is_none());

    // Bad base64 does not read back.
    let mut broken = value.clone();
    broken["blocks"][1]["data"] = json!("not base64!");
    let error = serde_json::from_value::<ToolResult>(broken).unwrap_err();
    assert!(error.to_string().contains("invalid base64"), "{error}");
}

#[tokio::test]
async fn mixed_results_keep_text_image_and_structured_output() {
    let executor = executor().build();
    let result = executor
        .execute(call(
            "p",
            "draw_picture",
            json!({"key": "picture-ok", "width": 3}),
        ))
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"width": 3})));
    assert_eq!(result.blocks.len(), 3);
    assert_eq!(
        result.content,
        "A picture 3 pixels wide:\n[image: image/png, 4 bytes]\n{\"width\":3}"
    );
    assert_contract_result(&result);
}

#[tokio::test]
async fn structured_output_that_breaks_the_schema_fails_naming_the_field() {
    assert!(executor().build().validates_output(), "on in debug builds");
    let result = executor()
        .build()
        .execute(call(
            "p",
            "draw_picture",
            json!({"key": "picture-bad", "width": -1}),
        ))
        .await;
    assert!(!result.success);
    assert_eq!(
        runs("picture-bad"),
        1,
        "the tool ran; its output was refused"
    );
    let error = result.error.as_deref().unwrap();
    assert!(
        error.starts_with(
            "tool `draw_picture` returned structured output that does not match its output schema (at `/width`: -1 is less than the minimum of 0)"
        ),
        "{error}"
    );
    assert!(error.contains("a bug in the tool"), "{error}");
    assert!(result.blocks.is_empty() && result.structured_content.is_none());
    assert_contract_result(&result);

    let unchecked = executor()
        .validate_output(false)
        .build()
        .execute(call(
            "p",
            "draw_picture",
            json!({"key": "picture-unchecked", "width": -1}),
        ))
        .await;
    assert!(unchecked.success, "{unchecked:?}");
    assert_eq!(unchecked.structured_content, Some(json!({"width": -1})));
}

#[tokio::test]
async fn output_above_the_limit_fails_without_being_sent() {
    let executor = executor().max_output_bytes(1000).build();
    assert_eq!(executor.max_output_bytes(), 1000);
    let small = executor
        .execute(call(
            "s",
            "huge_image",
            json!({"key": "huge", "bytes": 1000}),
        ))
        .await;
    assert!(small.success, "{small:?}");
    let large = executor
        .execute(call(
            "l",
            "huge_image",
            json!({"key": "huge", "bytes": 5000}),
        ))
        .await;
    assert!(!large.success);
    assert!(large.blocks.is_empty());
    assert_eq!(
        large.error.as_deref(),
        Some(
            "tool `huge_image` returned 4.9 KiB of output, above this executor's limit of \
             1000 bytes; it was not sent on. Ask for less (a smaller image, fewer results), or \
             the application can raise `ExecutorBuilder::max_output_bytes`"
        )
    );
    assert_eq!(runs("huge"), 2);
    assert_eq!(
        crate::tools::executor().build().max_output_bytes(),
        toolwright::runtime::executor::DEFAULT_MAX_OUTPUT_BYTES
    );
}
