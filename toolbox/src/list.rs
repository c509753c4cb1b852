//! `toolbox list` and `toolbox schema`.

use std::io::IsTerminal;

use serde_json::{Value, json};
use tool_runtime::schema::{SchemaOptions, tools_to_schema_with};
use tool_runtime::{Tool, ToolFilter};

use crate::cli::{ListArgs, SchemaArgs};
use crate::ending::{Outcome, UsageError, registry};

pub(crate) fn list(args: ListArgs) -> Result<Outcome, UsageError> {
    let registry = registry()?;
    let mut filter = ToolFilter::new();
    if let Some(level) = args.max_safety {
        filter = filter.max_safety(level);
    }
    if !args.categories.is_empty() {
        filter = filter.categories(args.categories.clone());
    }
    let ranked: Vec<(Tool, Option<f64>)> = match &args.search {
        Some(query) => registry
            .search_filtered(query, 20, &filter)
            .into_iter()
            .map(|hit| (hit.tool, Some(hit.score)))
            .collect(),
        None => registry
            .list(&filter)
            .into_iter()
            .map(|tool| (tool, None))
            .collect(),
    };
    if args.json {
        let tools: Vec<Value> = ranked
            .iter()
            .map(|(tool, score)| {
                let mut entry = json!({
                    "name": tool.name(),
                    "safety": tool.safety(),
                    "categories": tool.categories(),
                    "tags": tool.tags(),
                    "description": tool.description(),
                    "version": tool.version(),
                    "priority": tool.priority(),
                    "enabled": registry.is_enabled(tool.name()),
                });
                if let Some(score) = score {
                    entry["score"] = json!(score);
                }
                entry
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&tools).unwrap_or_default()
        );
        return Ok(Outcome::Success);
    }
    if ranked.is_empty() {
        eprintln!("no tools match");
        return Ok(Outcome::Success);
    }
    print_table(
        &ranked
            .iter()
            .map(|(tool, _)| tool.clone())
            .collect::<Vec<_>>(),
    );
    Ok(Outcome::Success)
}

/// Name, safety, categories, and the first sentence of the description, fitted to the
/// terminal (100 columns when not a terminal).
fn print_table(tools: &[Tool]) {
    let rows: Vec<[String; 4]> = tools
        .iter()
        .map(|tool| {
            [
                tool.name().to_owned(),
                tool.safety().to_string(),
                tool.categories().join(","),
                first_sentence(tool.description()),
            ]
        })
        .collect();
    let headers = ["NAME", "SAFETY", "CATEGORIES", "DESCRIPTION"];
    let mut widths = headers.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .unwrap_or(if std::io::stdout().is_terminal() {
            120
        } else {
            100
        });
    let fixed = widths[0] + widths[1] + widths[2] + 6;
    let description_width = columns.saturating_sub(fixed).max(30);
    let line = |cells: [&str; 4]| {
        let description: String = if cells[3].chars().count() > description_width {
            let cut: String = cells[3]
                .chars()
                .take(description_width.saturating_sub(3))
                .collect();
            format!("{cut}...")
        } else {
            cells[3].to_owned()
        };
        format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            cells[0],
            cells[1],
            cells[2],
            description,
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        )
        .trim_end()
        .to_owned()
    };
    println!("{}", line(headers));
    for row in &rows {
        println!("{}", line([&row[0], &row[1], &row[2], &row[3]]));
    }
}

fn first_sentence(description: &str) -> String {
    let paragraph = description
        .split("\n\n")
        .next()
        .unwrap_or("")
        .replace('\n', " ");
    match paragraph.find(". ") {
        Some(end) => paragraph[..=end].to_owned(),
        None => paragraph,
    }
}

pub(crate) fn schema(args: SchemaArgs) -> Result<Outcome, UsageError> {
    let registry = registry()?;
    let mut filter = ToolFilter::new();
    if let Some(level) = args.max_safety {
        filter = filter.max_safety(level);
    }
    if !args.tools.is_empty() {
        let names = registry.names();
        for wanted in &args.tools {
            if !names.contains(wanted) {
                return Err(UsageError(unknown_tool_message(wanted, &names)));
            }
        }
        filter = filter.names(args.tools.clone());
    }
    let tools = registry.list(&filter);
    match tools_to_schema_with(
        &tools,
        args.format,
        SchemaOptions::new().strict(args.strict),
    ) {
        Ok(exported) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&exported).unwrap_or_default()
            );
            Ok(Outcome::Success)
        }
        Err(error @ tool_runtime::schema::SchemaError::StrictNotSupported { .. }) => {
            Err(UsageError(error.to_string()))
        }
        Err(error) => {
            eprintln!("error: {error}");
            Ok(Outcome::ToolFailed)
        }
    }
}

/// "no tool named `x`; did you mean `y`?" with the closest registered names.
pub(crate) fn unknown_tool_message(name: &str, names: &[String]) -> String {
    let close = tool_names::close_names(name, names.iter().map(String::as_str), 3);
    if close.is_empty() {
        format!("no tool named `{name}`; `toolbox list` shows them all")
    } else {
        format!(
            "no tool named `{name}`; did you mean {}?",
            close
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    }
}
