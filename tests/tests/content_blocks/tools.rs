//! The tools of this binary. Each counts its runs under a `key` argument.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolwright::model::{Audio, Content, EmbeddedResource, Image, Json, ResourceLink};
use toolwright::runtime::ExecutorBuilder;
use toolwright::{Executor, ToolCall, ToolRegistry, ToolResult, register_all_tools, tool};

static RUNS: LazyLock<Mutex<HashMap<String, usize>>> = LazyLock::new(Mutex::default);

fn count(key: &str) {
    *RUNS.lock().unwrap().entry(key.to_owned()).or_default() += 1;
}

/// How many times a tool ran with `key`.
pub fn runs(key: &str) -> usize {
    RUNS.lock().unwrap().get(key).copied().unwrap_or(0)
}

/// The size of a picture.
#[derive(Serialize, JsonSchema)]
pub struct PictureSize {
    /// Width in pixels, never negative.
    #[schemars(range(min = 0))]
    pub width: i64,
}

/// Draw a picture: a caption, the image, and its size (a negative width breaks the output
/// schema, as a buggy tool would).
#[tool]
pub fn draw_picture(key: String, width: i64) -> (String, Image, Json<PictureSize>) {
    count(&key);
    (
        format!("A picture {width} pixels wide:"),
        Image::png(vec![0x89, b'P', b'N', b'G']),
        Json(PictureSize { width }),
    )
}

/// Return an image of `bytes` bytes.
#[tool]
pub fn huge_image(key: String, bytes: usize) -> Image {
    count(&key);
    Image::png(vec![0; bytes])
}

/// Return one block of every kind.
#[tool]
pub async fn every_block(key: String) -> Vec<Content> {
    count(&key);
    every_block_list()
}

/// What `every_block` returns.
pub fn every_block_list() -> Vec<Content> {
    vec![
        Content::text("all of them:"),
        Image::jpeg(vec![0xff, 0xd8]).into(),
        Audio::mp3(vec![0x49, 0x44, 0x33]).into(),
        ResourceLink::new("file:///r.pdf", "r.pdf")
            .with_mime_type("application/pdf")
            .into(),
        EmbeddedResource::text("file:///n.txt", "notes").into(),
        EmbeddedResource::blob("file:///r.pdf", b"%PDF".to_vec(), "application/pdf").into(),
    ]
}

/// Return a bitmap, a format no provider but MCP takes.
#[tool]
pub fn bitmap() -> Image {
    Image::new(b"BM".to_vec(), "image/bmp")
}

/// Read a number back (text only).
#[tool]
pub fn read_number(n: i64) -> i64 {
    n
}

pub fn registry() -> Arc<ToolRegistry> {
    Arc::new(register_all_tools().unwrap())
}

pub fn executor() -> ExecutorBuilder {
    Executor::builder(registry())
}

pub fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// The execution contract's schema of a tool result, verbatim.
fn contract_result_schema() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "success": {"type": "boolean"},
            "content": {"type": "string"},
            "metadata": {
                "type": "object",
                "properties": {
                    "execution_time_ms": {"type": "number"},
                    "safety_level": {"type": "string"},
                    "approved": {"type": "boolean"}
                }
            }
        },
        "required": ["id", "success", "content"]
    })
}

/// The result is valid under the contract's schema and reads back as itself.
pub fn assert_contract_result(result: &ToolResult) {
    let value = serde_json::to_value(result).unwrap();
    let validator = jsonschema::validator_for(&contract_result_schema()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{value}: {errors:?}");
    assert_eq!(result.success, result.error.is_none(), "{value}");
    let back: ToolResult = serde_json::from_value(value).unwrap();
    assert_eq!(&back, result);
}
