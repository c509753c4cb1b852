//! Introspection: the model looks itself up, among the tools it may call.

use std::num::NonZeroU32;

use serde_json::{Value, json};
use toolwright_runtime::schema::{Format, tools_to_schema};
use toolwright_runtime::{SafetyLevel, ToolContext, ToolError, ToolFilter, ToolRegistry, tool};

fn registry(ctx: &ToolContext) -> Result<&ToolRegistry, ToolError> {
    ctx.registry()
        .map(|registry| registry.as_ref())
        .ok_or_else(|| {
            ToolError::new(
                "no tool registry is available here; introspection tools run under an executor",
            )
        })
}

/// The first sentence of a description's first paragraph.
fn summary(description: &str) -> &str {
    let paragraph = description.split("\n\n").next().unwrap_or("");
    match paragraph.find(". ") {
        Some(end) => &paragraph[..=end],
        None => paragraph.lines().next().unwrap_or(""),
    }
}

/// List the tools available here: name, safety level, categories and a one-line summary,
/// optionally only one category.
#[tool(categories(introspection), tags("tools"))]
pub fn list_tools(
    ctx: &ToolContext,
    /// Only tools in this category, e.g. `filesystem`
    category: Option<String>,
) -> Result<String, ToolError> {
    let registry = registry(ctx)?;
    let mut filter = ctx.visible_tools();
    if let Some(category) = &category {
        filter = filter.categories([category.clone()]);
    }
    let tools = registry.list(&filter);
    if tools.is_empty() {
        return Ok(match category {
            Some(category) => format!("no tools in category `{category}`"),
            None => "no tools are available".to_owned(),
        });
    }
    Ok(tools
        .iter()
        .map(|t| {
            format!(
                "{} [{}; {}]: {}",
                t.name(),
                t.safety(),
                t.categories().join(", "),
                summary(t.description())
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Describe one tool: its full description, safety level, categories and the JSON Schema of
/// its parameters.
#[tool(categories(introspection), tags("tools"))]
pub fn describe_tool(
    ctx: &ToolContext,
    /// The tool's name
    name: String,
) -> Result<String, ToolError> {
    let registry = registry(ctx)?;
    // Looked up among the visible tools, not by narrowing the filter by name: the visible
    // filter may already name the tools offered for this request.
    let visible = registry.list(&ctx.visible_tools());
    let Some(tool) = visible.iter().find(|t| t.name() == name) else {
        let names: Vec<String> = visible.iter().map(|t| t.name().to_owned()).collect();
        // Closest first (typos by edit distance, then related names), ties alphabetical.
        let close = toolwright_names::close_names(&name, names.iter().map(String::as_str), 3);
        let hint = if close.is_empty() {
            "; list_tools shows the available tools".to_owned()
        } else {
            let close: Vec<String> = close.iter().map(|c| format!("`{c}`")).collect();
            format!("; did you mean {}?", close.join(" or "))
        };
        return Err(ToolError::new(format!(
            "no tool named `{name}` is available{hint}"
        )));
    };
    let exported = tools_to_schema(std::slice::from_ref(tool), Format::Mcp).remove(0);
    let description = json!({
        "name": tool.name(),
        "description": tool.description(),
        "safety": tool.safety(),
        "categories": tool.categories(),
        "tags": tool.tags(),
        "version": tool.version(),
        "input_schema": exported["inputSchema"],
        "output_schema": exported.get("outputSchema").cloned().unwrap_or(Value::Null),
    });
    Ok(serde_json::to_string_pretty(&description)?)
}

/// Find the tools most relevant to a task, by their names, descriptions and parameters.
#[tool(categories(introspection), tags("tools", "search"))]
pub fn search_tools(
    ctx: &ToolContext,
    /// What you want to do, e.g. "replace text in a file"
    query: String,
    /// How many tools to return, at least 1 (default 5); at most 20, a larger number counts as 20
    limit: Option<NonZeroU32>,
) -> Result<String, ToolError> {
    let registry = registry(ctx)?;
    let limit = limit.map_or(5, NonZeroU32::get).min(20) as usize;
    let filter: ToolFilter = ctx.visible_tools();
    let hits = registry.search_filtered(&query, limit, &filter);
    if hits.is_empty() {
        return Ok(format!(
            "no tool matches `{query}`; list_tools shows them all"
        ));
    }
    Ok(hits
        .iter()
        .map(|hit| {
            let safety = if hit.tool.safety() > SafetyLevel::Safe {
                format!(" [{}]", hit.tool.safety())
            } else {
                String::new()
            };
            format!(
                "{}{safety}: {} (score {:.2})",
                hit.tool.name(),
                summary(hit.tool.description()),
                hit.score
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}
