use toolwright::{ToolContext, ToolError, tool};
use toolwright::model::ToolState;

struct Greeting(&'static str);

/// Greet someone, with the greeting from the application's state.
#[tool(safety = "cautious")]
async fn greet(
    ctx: &ToolContext,
    /// Who to greet
    name: String,
) -> Result<String, ToolError> {
    tokio::task::yield_now().await;
    if name.is_empty() {
        return Err(ToolError::new("`name` is empty"));
    }
    let greeting = ctx.require_state::<Greeting>()?;
    Ok(format!("{}, {name} ({})", greeting.0, ctx.call_id()))
}

/// The context may come after the parameters.
#[tool]
async fn late_context(word: String, ctx: &ToolContext) -> String {
    format!("{word}@{}", ctx.call_id())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().build().unwrap();
    runtime.block_on(async {
        let registry = toolwright::register_all_tools().unwrap();
        let tool = registry.get("greet").unwrap();
        assert!(tool.is_async());
        assert_eq!(tool.safety(), toolwright::SafetyLevel::Cautious);
        // The context is not a parameter.
        assert_eq!(tool.params().len(), 1);
        assert_eq!(tool.required(), ["name"]);
        assert!(tool.input_schema()["properties"].get("ctx").is_none());

        let mut state = ToolState::new();
        state.insert(Greeting("Hello"));
        let ctx = ToolContext::new().with_call_id("call_1").with_state(state);
        let args = toolwright::serde_json::json!({"name": "Ada"}).as_object().unwrap().clone();
        let out = tool.call_with(ctx, args).await.unwrap();
        assert_eq!(out.content, "Hello, Ada (call_1)");

        let args = toolwright::serde_json::json!({"name": ""}).as_object().unwrap().clone();
        let err = tool.call(args).await.unwrap_err();
        assert!(err.to_string().contains("`name` is empty"), "{err}");

        let args = toolwright::serde_json::json!({}).as_object().unwrap().clone();
        let err = tool.call(args).await.unwrap_err();
        assert!(err.is_invalid_arguments());

        let tool = registry.get("late_context").unwrap();
        let ctx = ToolContext::new().with_call_id("c2");
        let args = toolwright::serde_json::json!({"word": "w"}).as_object().unwrap().clone();
        assert_eq!(tool.call_with(ctx, args).await.unwrap().content, "w@c2");
    });
}
