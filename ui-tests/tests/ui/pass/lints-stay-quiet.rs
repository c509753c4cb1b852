// Generated code must not trip the lints a careful crate turns on.
#![forbid(unsafe_code)]
#![deny(warnings, unused, nonstandard_style, rust_2018_idioms, unreachable_pub)]

use toolwright::{ToolContext, ToolError, tool, tool_set};

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
    use toolwright::tool;

    /// A tool in a private module.
    #[tool(categories(lint))]
    pub(crate) fn inner_tool() -> bool {
        true
    }
}

/// A private set, with a `#[state]` parameter.
struct Set(i64);

struct Offset(i64);

#[tool_set]
impl Set {
    /// A set's sync tool.
    #[tool(categories(lint))]
    fn set_sync(&self, #[state] offset: &Offset) -> i64 {
        self.0 + offset.0
    }

    /// A set's async tool.
    #[tool(categories(lint))]
    async fn set_async(&self, ctx: &ToolContext) -> String {
        format!("{}{}", self.0, ctx.call_id())
    }
}

fn main() {
    let registry = toolwright::register_all_tools().unwrap();
    let lint = registry.list(&toolwright::runtime::ToolFilter::new().categories(["lint"]));
    let names: Vec<&str> = lint.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["async_tool", "inner_tool", "set_async", "set_sync", "sync_tool"]);
    assert!(registry.get("inner_tool").unwrap().source().module_path.ends_with("::inner"));
}
