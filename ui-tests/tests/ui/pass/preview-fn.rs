use toolwright::serde_json::json;
use toolwright::{ToolContext, ToolError, register_all_tools, tool};

mod previews {
    use super::*;

    // The tool's parameters, by reference and in order; `&String` arrives as `&str`.
    pub fn drop_preview(_ctx: &ToolContext, table: &str, cascade: &Option<bool>) -> Result<String, ToolError> {
        let cascade = if cascade.unwrap_or(false) { " cascade" } else { "" };
        Ok(format!("drop table {table}{cascade}"))
    }
}

/// Drop a table.
#[tool(safety = "dangerous", preview = previews::drop_preview)]
fn drop_table(table: String, cascade: Option<bool>) -> String {
    let _ = cascade;
    format!("dropped {table}")
}

fn main() {
    let tool = register_all_tools().unwrap().get("drop_table").unwrap();
    assert!(tool.has_preview());
    let args = json!({"table": "users", "cascade": true}).as_object().unwrap().clone();
    let preview = tool.preview(&ToolContext::new(), &args).unwrap().unwrap();
    assert_eq!(preview.text, "drop table users cascade");
    // The preview reads the arguments as the tool does: a mistake is the same error.
    let bad = json!({"table": 3}).as_object().unwrap().clone();
    let err = tool.preview(&ToolContext::new(), &bad).unwrap().unwrap_err();
    assert!(err.to_string().contains("invalid value for parameter `table`"), "{err}");
}
