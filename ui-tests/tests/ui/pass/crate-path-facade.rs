// A crate that re-exports the runtime can point `#[tool]` at its own path, so its users
// need no direct dependency on `tool_runtime`.
mod facade {
    pub use tool_runtime;
}

use facade::tool_runtime as rt;

/// Shout a word.
#[facade::tool_runtime::tool(crate = facade::tool_runtime)]
fn shout(word: String) -> String {
    word.to_uppercase()
}

/// Whisper a word.
#[rt::tool(crate = crate::facade::tool_runtime, tags("quiet"))]
async fn whisper(word: String) -> String {
    word.to_lowercase()
}

fn main() {
    let registry = rt::register_all_tools().unwrap();
    let tool = registry.get("shout").unwrap();
    let args = serde_json::json!({"word": "hi"}).as_object().unwrap().clone();
    let out = tool.call_blocking(&rt::ToolContext::new(), args).unwrap().unwrap();
    assert_eq!(out.content, "HI");
    let whisper = registry.get("whisper").unwrap();
    assert!(whisper.is_async());
    assert_eq!(whisper.tags(), ["quiet"]);
}
