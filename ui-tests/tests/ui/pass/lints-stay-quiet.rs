// Generated code must not trip the lints a careful crate turns on.
#![forbid(unsafe_code)]
#![deny(warnings, unused, nonstandard_style, rust_2018_idioms, unreachable_pub)]

use tool_runtime::{ToolContext, ToolError, tool};

/// A sync tool.
#[tool(categories(lint), required("a"))]
fn sync_tool(a: i64, b: Option<i64>) -> i64 {
    a + b.unwrap_or(0)
}

/// An async tool.
#[tool(categories(lint))]
async fn async_tool(ctx: &ToolContext, text: String) -> Result<String, ToolError> {
    Ok(format!("{text}{}", ctx.call_id()))
}

mod inner {
    use tool_runtime::tool;

    /// A tool in a private module.
    #[tool(categories(lint))]
    pub(crate) fn inner_tool() -> bool {
        true
    }
}

fn main() {
    let registry = tool_runtime::register_all_tools().unwrap();
    let lint = registry.list(&tool_runtime::ToolFilter::new().categories(["lint"]));
    let names: Vec<&str> = lint.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["async_tool", "inner_tool", "sync_tool"]);
    assert!(registry.get("inner_tool").unwrap().source().module_path.ends_with("::inner"));
}
