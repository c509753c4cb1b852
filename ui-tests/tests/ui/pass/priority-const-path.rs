use toolwright::runtime::ToolFilter;
use toolwright::tool;

const MINE: i32 = toolwright::model::priority::OFFICIAL + 1;

/// A built-in tool.
#[tool(priority = toolwright::model::priority::BUILTIN)]
fn builtin_tool() -> String {
    String::new()
}

/// A tool with a computed priority.
#[tool(priority = MINE)]
fn computed_tool() -> String {
    String::new()
}

/// A tool with a negative priority.
#[tool(priority = -1)]
fn last_tool() -> String {
    String::new()
}

/// A tool with the default priority.
#[tool]
fn default_tool() -> String {
    String::new()
}

fn main() {
    let registry = toolwright::register_all_tools().unwrap();
    assert_eq!(registry.get("builtin_tool").unwrap().priority(), 100);
    assert_eq!(registry.get("computed_tool").unwrap().priority(), 51);
    assert_eq!(registry.get("last_tool").unwrap().priority(), -1);
    assert_eq!(
        registry.get("default_tool").unwrap().priority(),
        toolwright::model::priority::DEFAULT
    );
    let order: Vec<String> = registry
        .list(&ToolFilter::new())
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(order, ["builtin_tool", "computed_tool", "default_tool", "last_tool"]);
}
