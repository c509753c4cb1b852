//! Return values turned into result content, per the execution contract.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use toolwright::ToolError;
use toolwright::model::{IntoToolOutput, Json, ToolOutput};

fn content(output: impl IntoToolOutput) -> String {
    output.into_tool_output().unwrap().content
}

#[test]
fn strings_are_the_content_unchanged() {
    assert_eq!(
        content(String::from("line 1\n\"quoted\"")),
        "line 1\n\"quoted\""
    );
    assert_eq!(content("static"), "static");
}

#[test]
fn other_values_become_their_json_text() {
    assert_eq!(content(42_u8), "42");
    assert_eq!(content(-7_i64), "-7");
    assert_eq!(content(1.5_f64), "1.5");
    assert_eq!(content(true), "true");
    assert_eq!(content(()), "null");
    assert_eq!(content(json!({"a": [1, 2]})), r#"{"a":[1,2]}"#);
    assert_eq!(content(json!("text")), r#""text""#);
    assert_eq!(content(None::<u32>), "null");
    assert_eq!(content(Some(3_u32)), "3");
}

#[test]
fn json_output_is_structured_too() {
    #[derive(Serialize, JsonSchema)]
    struct Point {
        x: i32,
        y: i32,
    }
    let out = Json(Point { x: 1, y: 2 }).into_tool_output().unwrap();
    assert_eq!(
        out,
        ToolOutput {
            content: r#"{"x":1,"y":2}"#.into(),
            structured: Some(json!({"x": 1, "y": 2})),
            blocks: Vec::new(),
        }
    );
}

#[test]
fn errors_become_failures_with_their_message() {
    let failed: Result<String, std::io::Error> = Err(std::io::Error::other("disk full"));
    assert_eq!(
        failed.into_tool_output().unwrap_err().to_string(),
        "disk full"
    );
    let failed: Result<u8, ToolError> = Err(ToolError::new("bad input"));
    assert_eq!(
        failed.into_tool_output().unwrap_err().to_string(),
        "bad input"
    );
    let ok: Result<Json<Vec<u8>>, String> = Ok(Json(vec![1]));
    assert_eq!(ok.into_tool_output().unwrap().structured, Some(json!([1])));
}

#[test]
fn unserializable_structured_output_is_a_failure_not_a_panic() {
    #[derive(JsonSchema)]
    struct Bad;
    impl Serialize for Bad {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("cannot serialize Bad"))
        }
    }
    let err = Json(Bad).into_tool_output().unwrap_err();
    assert!(err.to_string().contains("cannot serialize Bad"), "{err}");
    let _: Value = Value::Null;
}

#[test]
fn content_blocks_and_tuples_become_blocks_in_order() {
    use toolwright::model::{Audio, Content, EmbeddedResource, Image, ResourceLink};

    // One block of text is plain text; anything else keeps its blocks.
    assert_eq!(
        Content::text("hi").into_tool_output().unwrap(),
        ToolOutput::text("hi")
    );
    let image = Image::png(vec![1, 2, 3]).into_tool_output().unwrap();
    assert_eq!(image.blocks, [Content::from(Image::png(vec![1, 2, 3]))]);
    assert_eq!(image.content, "[image: image/png, 3 bytes]");
    assert_eq!(
        Audio::wav(vec![0]).into_tool_output().unwrap().content,
        "[audio: audio/wav, 1 bytes]"
    );
    assert_eq!(
        ResourceLink::new("https://example.com/a", "a")
            .into_tool_output()
            .unwrap()
            .content,
        "[resource link: a <https://example.com/a>]"
    );
    assert_eq!(
        EmbeddedResource::text("file:///a", "text")
            .into_tool_output()
            .unwrap()
            .blocks
            .len(),
        1
    );
    let two_texts = vec![Content::text("a"), Content::text("b")]
        .into_tool_output()
        .unwrap();
    assert_eq!(
        (two_texts.content.as_str(), two_texts.blocks.len()),
        ("a\nb", 2)
    );
    assert_eq!(
        Vec::<Content>::new().into_tool_output().unwrap(),
        ToolOutput::default()
    );

    // A tuple: blocks in order, the structured output and schema of its `Json`.
    #[derive(Serialize, JsonSchema)]
    struct Meta {
        pages: u32,
    }
    let out = (
        "Cover:",
        Image::jpeg(vec![9]),
        Json(Meta { pages: 2 }),
        Some(Audio::wav(vec![])),
    )
        .into_tool_output()
        .unwrap();
    assert_eq!(out.blocks.len(), 4);
    assert_eq!(out.structured, Some(json!({"pages": 2})));
    assert_eq!(
        out.content,
        "Cover:\n[image: image/jpeg, 1 bytes]\n{\"pages\":2}\n[audio: audio/wav, 0 bytes]"
    );
    let mut generator = schemars::SchemaGenerator::default();
    let schema = <(&str, Image, Json<Meta>) as IntoToolOutput>::output_schema(&mut generator);
    assert_eq!(
        schema.unwrap().as_value()["properties"]["pages"]["type"],
        "integer"
    );
    assert!(<(String, Image) as IntoToolOutput>::output_schema(&mut generator).is_none());

    // A failing element fails the whole output.
    let failed: (&str, Result<Image, String>) = ("x", Err("no camera".into()));
    assert_eq!(
        failed.into_tool_output().unwrap_err().to_string(),
        "no camera"
    );

    // Blocks serialize with base64 data and read back.
    let value = serde_json::to_value(&out).unwrap();
    assert_eq!(
        value["blocks"][1],
        json!({"type": "image", "data": "CQ==", "mime_type": "image/jpeg"})
    );
    assert_eq!(serde_json::from_value::<ToolOutput>(value).unwrap(), out);
}

#[test]
fn the_builder_adds_blocks_after_the_text() {
    use toolwright::model::{Content, Image};

    let out = ToolOutput::default().block(Image::png(vec![1]));
    assert_eq!(
        out.blocks,
        [Content::from(Image::png(vec![1]))],
        "no empty text first"
    );
    let out = ToolOutput::structured(json!({"a": 1}))
        .block("and a picture")
        .block(Image::gif(vec![2]));
    assert_eq!(out.blocks.len(), 3);
    assert_eq!(out.structured, Some(json!({"a": 1})));
    assert_eq!(out.content_blocks().len(), 3);
    assert_eq!(out.byte_len(), 7 + 13 + 1);
}
