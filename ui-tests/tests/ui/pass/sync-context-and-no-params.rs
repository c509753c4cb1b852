use toolwright::{ToolContext, tool};

/// The id of the current call.
#[tool]
fn call_id(ctx: &toolwright::ToolContext) -> String {
    ctx.call_id().to_owned()
}

/// Takes nothing at all.
#[tool]
fn nothing() -> &'static str {
    "ok"
}

fn main() {
    let registry = toolwright::register_all_tools().unwrap();
    let tool = registry.get("call_id").unwrap();
    assert!(tool.params().is_empty());
    assert_eq!(tool.input_schema()["properties"], toolwright::serde_json::json!({}));
    assert!(tool.input_schema().get("required").is_none());
    let ctx = ToolContext::new().with_call_id("abc");
    let out = tool.call_blocking(&ctx, toolwright::serde_json::Map::new()).unwrap().unwrap();
    assert_eq!(out.content, "abc");

    // Unknown arguments are refused.
    let tool = registry.get("nothing").unwrap();
    let args = toolwright::serde_json::json!({"extra": 1}).as_object().unwrap().clone();
    let err = tool.call_blocking(&ToolContext::new(), args).unwrap().unwrap_err();
    assert!(err.is_invalid_arguments());
    // And the fns are still callable directly.
    assert_eq!(call_id(&ToolContext::new().with_call_id("x")), "x");
    assert_eq!(nothing(), "ok");
}
