//! `toolwright list` and `toolwright schema`.

use std::io::IsTerminal;

use serde_json::{Value, json};
use toolwright_core::Tool;
use toolwright_formats::schema::{SchemaOptions, tools_to_schema_with};
use toolwright_runtime::{ToolFilter, ToolRegistry};

use crate::cli::{ListArgs, SchemaArgs};
use crate::ending::{Outcome, Stop, print};

pub(crate) async fn list(args: ListArgs) -> Result<Outcome, Stop> {
    let (registry, mounted) =
        crate::gateway::registry(args.config.as_deref(), args.code_mode).await?;
    // The tools of the upstreams that came up; status 2 if one did not.
    mounted.finish(list_in(&registry, &args))
}

fn list_in(registry: &ToolRegistry, args: &ListArgs) -> Result<Outcome, Stop> {
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
        let json = serde_json::to_string_pretty(&tools).unwrap_or_default();
        print(|out| writeln!(out, "{json}"))?;
        return Ok(Outcome::Success);
    }
    if ranked.is_empty() {
        eprintln!("no tools match");
        for hint in unknown_category_hints(&registry.list(&ToolFilter::new()), &args.categories) {
            eprintln!("{hint}");
        }
        return Ok(Outcome::Success);
    }
    let tools: Vec<Tool> = ranked.into_iter().map(|(tool, _)| tool).collect();
    let table = table(&tools, table_width(args.wide));
    print(|out| out.write_all(table.as_bytes()))?;
    Ok(Outcome::Success)
}

/// The narrowest the description column gets when the table is fitted to a width: a few
/// words and `...`. Narrower widths than the other columns leave room for are overrun.
const MIN_DESCRIPTION_WIDTH: usize = 10;

/// How wide the table may be, in columns; `None`: no limit. `--wide` never cuts; else
/// `$COLUMNS` when set (as `ls` does), else the terminal's width; a pipe or a file is not
/// cut, so `toolwright list | grep ...` sees whole descriptions.
fn table_width(wide: bool) -> Option<usize> {
    if wide {
        return None;
    }
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
    {
        return Some(columns);
    }
    if std::io::stdout().is_terminal() {
        return Some(
            terminal_size::terminal_size()
                .map_or(80, |(terminal_size::Width(width), _)| usize::from(width)),
        );
    }
    None
}

/// The table: name, safety, categories and description (on one line), columns aligned; the
/// descriptions cut with `...` to fit `width` when there is one.
fn table(tools: &[Tool], width: Option<usize>) -> String {
    let rows: Vec<[String; 4]> = tools
        .iter()
        .map(|tool| {
            [
                tool.name().to_owned(),
                tool.safety().to_string(),
                tool.categories().join(","),
                one_line(tool.description()),
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
    let fixed = widths[0] + widths[1] + widths[2] + 6;
    let description_width =
        width.map(|width| width.saturating_sub(fixed).max(MIN_DESCRIPTION_WIDTH));
    let line = |cells: [&str; 4]| {
        let description = match description_width {
            Some(max) if cells[3].chars().count() > max => {
                let cut: String = cells[3].chars().take(max.saturating_sub(3)).collect();
                format!("{}...", cut.trim_end())
            }
            _ => cells[3].to_owned(),
        };
        let line = format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            cells[0],
            cells[1],
            cells[2],
            description,
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2]
        );
        line.trim_end().to_owned() + "\n"
    };
    let mut table = line(headers);
    for row in &rows {
        table.push_str(&line([&row[0], &row[1], &row[2], &row[3]]));
    }
    table
}

/// The whole description on one line: its line breaks and runs of spaces become one space.
fn one_line(description: &str) -> String {
    description.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) async fn schema(args: SchemaArgs) -> Result<Outcome, Stop> {
    let (registry, mounted) =
        crate::gateway::registry(args.config.as_deref(), args.code_mode).await?;
    mounted.finish(schema_in(&registry, &args))
}

fn schema_in(registry: &ToolRegistry, args: &SchemaArgs) -> Result<Outcome, Stop> {
    let mut filter = ToolFilter::new();
    if let Some(level) = args.max_safety {
        filter = filter.max_safety(level);
    }
    if !args.tools.is_empty() {
        let names = registry.names();
        for wanted in &args.tools {
            if !names.contains(wanted) {
                return Err(Stop::Usage(
                    crate::code_mode::off_hint(wanted, args.code_mode)
                        .unwrap_or_else(|| unknown_tool_message(wanted, &names)),
                ));
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
            let json = serde_json::to_string_pretty(&exported).unwrap_or_default();
            print(|out| writeln!(out, "{json}"))?;
            Ok(Outcome::Success)
        }
        Err(error @ toolwright_formats::schema::SchemaError::StrictNotSupported { .. }) => {
            Err(Stop::Usage(error.to_string()))
        }
        Err(error) => {
            eprintln!("error: {error}");
            Ok(Outcome::ToolFailed)
        }
    }
}

/// One line for each `--category` no tool has, with the closest categories that exist
/// (a typo in a filter otherwise reads as "no tools match" and nothing more).
fn unknown_category_hints(tools: &[Tool], asked: &[String]) -> Vec<String> {
    let mut known: Vec<&str> = tools
        .iter()
        .flat_map(|tool| tool.categories().iter().map(|c| c.as_ref()))
        .collect();
    known.sort_unstable();
    known.dedup();
    asked
        .iter()
        .filter(|category| !known.contains(&category.as_str()))
        .map(|category| {
            let close = toolwright_names::close_names(category, known.iter().copied(), 3);
            let quoted = |names: &[&str]| {
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if close.is_empty() {
                format!(
                    "no tool has the category `{category}`; the categories are {}",
                    quoted(&known)
                )
            } else {
                format!(
                    "no tool has the category `{category}`; did you mean {}?",
                    close
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            }
        })
        .collect()
}

/// "no tool named `x`; did you mean `y`?" with the closest registered names.
pub(crate) fn unknown_tool_message(name: &str, names: &[String]) -> String {
    let close = toolwright_names::close_names(name, names.iter().map(String::as_str), 3);
    if close.is_empty() {
        format!("no tool named `{name}`; `toolwright list` shows them all")
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
