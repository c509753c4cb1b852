// A crate that re-exports the facade can point `#[tool]` at its own path, so its users
// need no direct dependency on `toolwright`.
mod facade {
    pub use toolwright;
}

use facade::toolwright as tw;

/// Shout a word.
#[facade::toolwright::tool(crate = facade::toolwright)]
fn shout(word: String) -> String {
    word.to_uppercase()
}

/// Whisper a word.
#[tw::tool(crate = crate::facade::toolwright, tags("quiet"))]
async fn whisper(word: String) -> String {
    word.to_lowercase()
}

fn main() {
    let registry = tw::register_all_tools().unwrap();
    let tool = registry.get("shout").unwrap();
    let args = tw::serde_json::json!({"word": "hi"}).as_object().unwrap().clone();
    let out = tool.call_blocking(&tw::ToolContext::new(), args).unwrap().unwrap();
    assert_eq!(out.content, "HI");
    let whisper = registry.get("whisper").unwrap();
    assert!(whisper.is_async());
    assert_eq!(whisper.tags(), ["quiet"]);
}
