use std::fmt;

use schemars::JsonSchema;
use serde::Serialize;
use toolwright::serde_json::{Value, json};
use toolwright::model::Json;
use toolwright::{ToolContext, tool};

/// Returns a `String`.
#[tool]
fn ret_string() -> String {
    "text".to_owned()
}

/// Returns a `&'static str`.
#[tool]
fn ret_str() -> &'static str {
    "static"
}

/// Returns an `i64`.
#[tool]
fn ret_i64() -> i64 {
    -7
}

/// Returns a `u8`.
#[tool]
fn ret_u8() -> u8 {
    255
}

/// Returns an `f64`.
#[tool]
fn ret_f64() -> f64 {
    1.5
}

/// Returns a `bool`.
#[tool]
fn ret_bool() -> bool {
    true
}

/// Returns nothing.
#[tool]
fn ret_unit() {}

/// Returns `()` explicitly.
#[tool]
fn ret_unit_explicit() -> () {}

/// Returns a `toolwright::serde_json::Value`.
#[tool]
fn ret_value() -> Value {
    json!({"a": 1})
}

#[derive(Serialize, JsonSchema)]
struct Weather {
    celsius: f64,
}

/// Returns structured output.
#[tool]
fn ret_json() -> Json<Weather> {
    Json(Weather { celsius: 21.5 })
}

/// Returns an `Option`.
#[tool]
fn ret_option(some: bool) -> Option<u32> {
    some.then_some(3)
}

#[derive(Debug)]
struct MyError;

impl fmt::Display for MyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("my error")
    }
}

/// Returns a `Result` with an error that is only `Display`.
#[tool]
fn ret_result(fail: bool) -> Result<Json<Weather>, MyError> {
    if fail { Err(MyError) } else { Ok(Json(Weather { celsius: 0.0 })) }
}

/// Returns a nested `Result<Option<_>, String>` from an async fn.
#[tool]
async fn ret_async_nested() -> Result<Option<String>, String> {
    Ok(None)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let registry = toolwright::register_all_tools().unwrap();
    let call = |name: &str, args: Value| {
        let tool = registry.get(name).unwrap();
        let args = args.as_object().unwrap().clone();
        runtime.block_on(tool.call_with(ToolContext::new(), args))
    };
    let text = |name: &str| call(name, json!({})).unwrap().content;

    assert_eq!(text("ret_string"), "text");
    assert_eq!(text("ret_str"), "static");
    assert_eq!(text("ret_i64"), "-7");
    assert_eq!(text("ret_u8"), "255");
    assert_eq!(text("ret_f64"), "1.5");
    assert_eq!(text("ret_bool"), "true");
    assert_eq!(text("ret_unit"), "null");
    assert_eq!(text("ret_unit_explicit"), "null");
    assert_eq!(text("ret_value"), r#"{"a":1}"#);
    assert_eq!(text("ret_async_nested"), "null");

    let out = call("ret_json", json!({})).unwrap();
    assert_eq!(out.structured, Some(json!({"celsius": 21.5})));
    let schema = registry.get("ret_json").unwrap().output_schema().cloned().unwrap();
    assert_eq!(schema["properties"]["celsius"]["type"], "number");
    assert!(registry.get("ret_string").unwrap().output_schema().is_none());

    assert_eq!(call("ret_option", json!({"some": true})).unwrap().content, "3");
    assert_eq!(call("ret_option", json!({"some": false})).unwrap().content, "null");

    // `Result<Json<T>, E>` keeps the output schema of `T`.
    assert!(registry.get("ret_result").unwrap().output_schema().is_some());
    let err = call("ret_result", json!({"fail": true})).unwrap_err();
    assert!(err.to_string().contains("my error"), "{err}");
}
