//! Return values turned into result content, per the execution contract.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};
use tool_runtime::{IntoToolOutput, Json, ToolError, ToolOutput};

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
