use serde_json::{Map, Value, json};
use tool_runtime::{ToolContext, ToolError, register_all_tools, tool};

mod previews {
    use super::*;

    pub fn drop_preview(_ctx: &ToolContext, args: &Map<String, Value>) -> Result<String, ToolError> {
        Ok(format!("drop table {}", args["table"]))
    }
}

/// Drop a table.
#[tool(safety = "dangerous", preview = previews::drop_preview)]
fn drop_table(table: String) -> String {
    format!("dropped {table}")
}

fn main() {
    let tool = register_all_tools().unwrap().get("drop_table").unwrap();
    assert!(tool.has_preview());
    let args = json!({"table": "users"}).as_object().unwrap().clone();
    let preview = tool.preview(&ToolContext::new(), &args).unwrap().unwrap();
    assert_eq!(preview, "drop table \"users\"");
}
