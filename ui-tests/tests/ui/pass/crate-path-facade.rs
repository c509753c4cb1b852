// A crate that re-exports the runtime can point `#[tool]` at its own path, so its users
// need no direct dependency on `toolwright_runtime`.
mod facade {
    pub use toolwright_runtime;
}

use facade::toolwright_runtime as rt;

/// Shout a word.
#[facade::toolwright_runtime::tool(crate = facade::toolwright_runtime)]
fn shout(word: String) -> String {
    word.to_uppercase()
}

/// Whisper a word.
#[rt::tool(crate = crate::facade::toolwright_runtime, tags("quiet"))]
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
