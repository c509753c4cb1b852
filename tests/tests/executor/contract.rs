//! `ToolCall` and `ToolResult` in exactly the execution contract's JSON shape.

use serde_json::{Value, json};
use toolwright::model::ResultMetadata;
use toolwright::{SafetyLevel, ToolCall, ToolResult};

use crate::tools::{approve_all, call, executor};

/// The JSON Schema of a tool result, as the execution contract gives it, verbatim.
fn contract_schema() -> Value {
    json!({
      "$schema": "http://json-schema.org/draft-07/schema#",
      "type": "object",
      "title": "Tool Execution",
      "description": "Schema for tool execution request and response",
      "definitions": {
        "tool_call": {
          "type": "object",
          "properties": {
            "id": {"type": "string", "description": "Unique call identifier"},
            "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "arguments": {"type": "object", "description": "Tool arguments"}
          },
          "required": ["id", "name", "arguments"]
        },
        "tool_result": {
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
        }
      }
    })
}

fn validator(definition: &str) -> jsonschema::Validator {
    let mut schema = contract_schema();
    let definitions = schema["definitions"].clone();
    schema = definitions[definition].clone();
    schema["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    jsonschema::validator_for(&schema).unwrap()
}

pub fn assert_contract_result(result: &ToolResult) {
    let value = serde_json::to_value(result).unwrap();
    let errors: Vec<String> = validator("tool_result")
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{value}: {errors:?}");
    // Success XOR error.
    assert_eq!(result.success, result.error.is_none(), "{value}");
    assert_eq!(value.get("error").is_some(), !result.success, "{value}");
    // And it reads back as itself.
    let back: ToolResult = serde_json::from_value(value).unwrap();
    assert_eq!(&back, result);
}

#[test]
fn tool_calls_serialize_and_deserialize_in_the_contract_shape() {
    let call = ToolCall::new("call_abc123", "describe_symbol", json!({"symbol": "defun"}));
    let value = serde_json::to_value(&call).unwrap();
    assert!(validator("tool_call").is_valid(&value));
    assert_eq!(
        value,
        json!({"id": "call_abc123", "name": "describe_symbol", "arguments": {"symbol": "defun"}})
    );
    let back: ToolCall = serde_json::from_value(value).unwrap();
    assert_eq!(back, call);
    assert!(serde_json::from_value::<ToolCall>(json!({"id": "x", "name": "y"})).is_err());
}

#[test]
fn constructed_results_are_in_the_contract_shape() {
    let ok = ToolResult::success("c", "fine");
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"id": "c", "success": true, "content": "fine", "metadata": {"execution_time_ms": 0.0}})
    );
    let failed = ToolResult::failure("c", "Symbol XYZ not found");
    assert_eq!(
        serde_json::to_value(&failed).unwrap(),
        json!({"id": "c", "success": false, "content": "Symbol XYZ not found", "error": "Symbol XYZ not found",
               "metadata": {"execution_time_ms": 0.0}})
    );
    // The contract's own examples (no metadata) deserialize.
    let lisp: ToolResult = serde_json::from_value(
        json!({"id": "call_abc123", "success": true, "content": "DEFUN [function]"}),
    )
    .unwrap();
    assert_eq!(lisp.metadata, ResultMetadata::default());
    assert_contract_result(&ok);
    assert_contract_result(&failed);
}

#[tokio::test]
async fn every_kind_of_result_matches_the_schema() {
    let executor = executor().approval(approve_all()).build();
    let calls = vec![
        call("ok", "read_number", json!({"key": "contract", "n": 1})),
        call("handler-error", "fail_politely", json!({"key": "contract"})),
        call("bad-args", "read_number", json!({"n": "x"})),
        call("unknown", "no_such_tool", json!({})),
        call("bad-name", "No Such Tool", json!({})),
        call("not-object", "read_number", json!([1])),
        call("panic", "explode", json!({"key": "contract"})),
        call(
            "dangerous",
            "wipe_path",
            json!({"key": "contract", "path": "x"}),
        ),
    ];
    let results = executor.execute_batch(calls, Default::default()).await;
    for result in &results {
        assert_contract_result(result);
    }
    let ok = &results[0];
    assert_eq!(ok.metadata.safety_level, Some(SafetyLevel::Safe));
    assert!(ok.metadata.execution_time_ms >= 0.0);
    let value = serde_json::to_value(&results[7]).unwrap();
    assert_eq!(value["metadata"]["safety_level"], "dangerous");
    assert_eq!(value["metadata"]["approved"], true);
}

#[tokio::test]
async fn structured_output_is_carried_beside_the_text() {
    let executor = executor().build();
    let result = executor
        .execute(call("c", "read_number", json!({"key": "s", "n": 4})))
        .await;
    assert_eq!(result.structured_content, None);
}
