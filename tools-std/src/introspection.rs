//! Introspection: the model looks itself up, among the tools it may call.

use std::num::NonZeroU32;

use serde_json::{Value, json};
use toolwright_core::{Catalog, SafetyLevel, ToolContext, ToolError, tool};

/// The tools this call may see (read-only; the executor gives every call one).
fn catalog(ctx: &ToolContext) -> Result<&Catalog, ToolError> {
    ctx.catalog().ok_or_else(|| {
        ToolError::new(
            "no tool catalog is available here; introspection tools run under an executor",
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
    let mut tools = catalog(ctx)?.list();
    if let Some(category) = &category {
        tools.retain(|t| t.categories().contains(&category.as_str()));
    }
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
    let visible = catalog(ctx)?.list();
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
    let description = json!({
        "name": tool.name(),
        "description": tool.description(),
        "safety": tool.safety(),
        "categories": tool.categories(),
        "tags": tool.tags(),
        "version": tool.version(),
        "input_schema": tool.input_schema(),
        "output_schema": tool.output_schema().cloned().unwrap_or(Value::Null),
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
    let limit = limit.map_or(5, NonZeroU32::get).min(20) as usize;
    let hits = catalog(ctx)?.search(&query, limit);
    if hits.is_empty() {
        return Ok(format!(
            "no tool matches `{query}`; list_tools shows them all"
        ));
    }
    // Score 0 everywhere: no word of the query matched, these are guesses (the search
    // never answers nothing while tools exist); say so, or a model takes them for matches.
    let guesses = hits.iter().all(|hit| hit.score == 0.0);
    let heading = if guesses {
        format!("no tool matches `{query}`; some of the tools (list_tools shows them all):\n")
    } else {
        String::new()
    };
    Ok(heading
        + &hits
            .iter()
            .map(|hit| {
                let safety = if hit.entry.safety() > SafetyLevel::Safe {
                    format!(" [{}]", hit.entry.safety())
                } else {
                    String::new()
                };
                format!(
                    "{}{safety}: {} (score {:.2})",
                    hit.entry.name(),
                    summary(hit.entry.description()),
                    hit.score
                )
            })
            .collect::<Vec<_>>()
            .join("\n"))
}
