//! [`export_deferred`]: the tool list of one request, per format.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use toolwright_core::Tool;

use super::plan::{
    DeferPlan, DeferredTools, DiscoveryError, Entry, Grouping, MAX_ANTHROPIC_TOOLS, MAX_NAME_LEN,
    OUR_SEARCH_TOOL, SearchTool,
};
use crate::schema::{Format, tools_to_schema};

/// What our search tool tells the model, in every format. It says the list is partial, so
/// the model does not take the tools it sees for all there are.
const SEARCH_DESCRIPTION: &str = "Search the tools available to you. The tools listed are only \
part of them: when none of them fits the task, describe what you need in a few words and the \
best matches are loaded, with their full parameters, for your next step.";

/// Our search tool's parameters.
fn search_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tool should do, in a few words, in any language"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many tools to return (default 5)"}
        },
        "required": ["query"]
    })
}

/// The tool list for one request: the core in full, the rest deferred (Anthropic, OpenAI
/// Responses) or left to our search (Chat Completions, Gemini), with the search tool; and
/// the map back from the provider's names to ours. `tools` is what this caller may see:
/// filter it first (ceiling, offered set), since a deferred tool is still offered.
///
/// Deterministic: the same tools and plan give the same bytes.
///
/// # Errors
///
/// [`DiscoveryError::Unsupported`] for MCP; [`DiscoveryError::TooManyTools`] over
/// Anthropic's 10,000; [`DiscoveryError::NameTooLong`] for a namespace or function name
/// over 64 characters; [`DiscoveryError::NameClash`] when two entries would share a name.
///
/// ```
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::{DeferPlan, Grouping, SearchTool, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = |name: &str| Tool::builder(name).description("A tool.")
///     .handler(|_| async { "ok" }).build().unwrap();
/// let tools = [tool("github_create_issue"), tool("github_close_issue"), tool("read_notes")];
/// let plan = DeferPlan::new()
///     .core_names(["read_notes"])
///     .group_by(Grouping::Prefixes(vec!["github".into()]));
/// let list = export_deferred(&tools, Format::OpenAiResponses, &plan).unwrap();
/// assert_eq!(list.tools()[0]["type"], "tool_search");
/// assert_eq!(list.tools()[1]["name"], "read_notes");
/// let namespace = &list.tools()[2];
/// assert_eq!((namespace["type"].as_str(), namespace["name"].as_str()), (Some("namespace"), Some("github")));
/// assert_eq!(namespace["tools"][1]["name"], "close_issue");
/// assert_eq!(namespace["tools"][0]["defer_loading"], true);
/// assert_eq!(list.resolve(Some("github"), "close_issue").unwrap(), "github_close_issue");
/// ```
pub fn export_deferred(
    tools: &[Tool],
    format: Format,
    plan: &DeferPlan,
) -> Result<DeferredTools, DiscoveryError> {
    let search = match format {
        Format::Anthropic | Format::OpenAiResponses => plan.search_tool(),
        Format::OpenAiChat | Format::Gemini => SearchTool::Ours,
        _ => return Err(DiscoveryError::Unsupported { format }),
    };
    if format == Format::Anthropic && tools.len() > MAX_ANTHROPIC_TOOLS {
        return Err(DiscoveryError::TooManyTools {
            format,
            count: tools.len(),
            max: MAX_ANTHROPIC_TOOLS,
        });
    }
    let schemas = tools_to_schema(tools, format);
    let mut list = DeferredTools {
        format,
        search,
        tools: Vec::new(),
        entries: BTreeMap::new(),
        by_provider_name: BTreeMap::new(),
        namespaces: BTreeMap::new(),
    };
    if search == SearchTool::Ours && tools.iter().any(|tool| tool.name() == OUR_SEARCH_TOOL) {
        return Err(DiscoveryError::NameClash {
            format,
            name: OUR_SEARCH_TOOL.to_owned(),
        });
    }
    list.tools.push(search_tool(format, search));
    // Namespaces in first-seen order of their tools' (sorted) names: deterministic.
    let mut grouped: Vec<(String, Vec<Value>)> = Vec::new();
    for (tool, schema) in tools.iter().zip(schemas) {
        check_len(format, tool.name())?;
        let core = plan.is_core(tool);
        // Chat Completions and Gemini cannot defer: there a tool outside the core is left
        // out, for `search_tools` to find.
        let deferred = !core;
        let (namespace, provider_name) = match (format, core) {
            (Format::OpenAiResponses, false) => place(tool, plan.grouping()),
            _ => (None, tool.name().to_owned()),
        };
        let mut definition = schema;
        if let Some(object) = definition.as_object_mut() {
            if namespace.is_some() {
                object.insert("name".into(), json!(provider_name));
            }
            if deferred && matches!(format, Format::Anthropic | Format::OpenAiResponses) {
                object.insert("defer_loading".into(), json!(true));
            }
        }
        let entry = Entry {
            namespace: namespace.clone(),
            definition: definition.clone(),
            description: tool.description().to_owned(),
            deferred,
        };
        list.by_provider_name
            .insert((namespace.clone(), provider_name), tool.name().to_owned());
        list.entries.insert(tool.name().to_owned(), entry);
        if deferred && matches!(format, Format::OpenAiChat | Format::Gemini) {
            continue;
        }
        match namespace {
            Some(namespace) => {
                check_len(format, &namespace)?;
                match grouped.iter_mut().find(|(name, _)| *name == namespace) {
                    Some((_, members)) => members.push(definition),
                    None => grouped.push((namespace, vec![definition])),
                }
            }
            None => list.tools.push(definition),
        }
    }
    for (namespace, members) in grouped {
        if list.entries.contains_key(&namespace) || namespace == OUR_SEARCH_TOOL {
            return Err(DiscoveryError::NameClash {
                format,
                name: namespace,
            });
        }
        let description = plan
            .description_of(&namespace)
            .map_or_else(|| default_description(&namespace, &members), str::to_owned);
        list.namespaces
            .insert(namespace.clone(), description.clone());
        list.tools.push(json!({
            "type": "namespace",
            "name": namespace,
            "description": description,
            "tools": members,
        }));
    }
    Ok(list)
}

/// The search tool's entry in `format`.
fn search_tool(format: Format, search: SearchTool) -> Value {
    match (format, search) {
        // https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
        (Format::Anthropic, SearchTool::ProviderRegex) => {
            json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
        }
        (Format::Anthropic, SearchTool::ProviderBm25) => {
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
        }
        // https://developers.openai.com/api/docs/guides/tools-tool-search
        (Format::OpenAiResponses, SearchTool::Ours) => json!({
            "type": "tool_search",
            "execution": "client",
            "description": SEARCH_DESCRIPTION,
            "parameters": search_parameters(),
        }),
        (Format::OpenAiResponses, _) => json!({"type": "tool_search"}),
        (Format::Anthropic, _) => json!({
            "name": OUR_SEARCH_TOOL,
            "description": SEARCH_DESCRIPTION,
            "input_schema": search_parameters(),
        }),
        (Format::Gemini, _) => json!({
            "name": OUR_SEARCH_TOOL,
            "description": SEARCH_DESCRIPTION,
            "parameters": search_parameters(),
        }),
        _ => json!({"type": "function", "function": {
            "name": OUR_SEARCH_TOOL,
            "description": SEARCH_DESCRIPTION,
            "parameters": search_parameters(),
        }}),
    }
}

/// Where a deferred OpenAI Responses function goes: its namespace, if any, and its name there.
fn place(tool: &Tool, grouping: &Grouping) -> (Option<String>, String) {
    let name = tool.name();
    match grouping {
        Grouping::Categories => (
            tool.categories()
                .first()
                .map(|category| namespace_name(category)),
            name.to_owned(),
        ),
        Grouping::Prefixes(prefixes) => prefixes
            .iter()
            .filter(|prefix| {
                name.len() > prefix.len() + 1
                    && name.starts_with(prefix.as_str())
                    && name.as_bytes()[prefix.len()] == b'_'
            })
            .max_by_key(|prefix| prefix.len())
            .map_or_else(
                || (None, name.to_owned()),
                |prefix| {
                    (
                        Some(namespace_name(prefix)),
                        name[prefix.len() + 1..].to_owned(),
                    )
                },
            ),
        _ => (None, name.to_owned()),
    }
}

/// A label as a namespace name: the characters OpenAI takes in names (`a-z A-Z 0-9 _ -`),
/// others as `_`.
fn namespace_name(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A namespace's description when the operator gave none: how many functions it holds and
/// the first few names (a namespace of hundreds would otherwise cost what deferring saved).
/// Written from names we checked, never from a mounted server's own words.
fn default_description(namespace: &str, members: &[Value]) -> String {
    const SHOWN: usize = 8;
    let names: Vec<&str> = members
        .iter()
        .filter_map(|member| member.get("name").and_then(Value::as_str))
        .take(SHOWN)
        .collect();
    let more = members.len().saturating_sub(SHOWN);
    let rest = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!(
        "{} tools in `{namespace}`: {}{rest}.",
        members.len(),
        names.join(", ")
    )
}

/// Refuses a name over the providers' limit.
fn check_len(format: Format, name: &str) -> Result<(), DiscoveryError> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(DiscoveryError::NameTooLong {
            format,
            name: name.to_owned(),
            len: name.len(),
            max: MAX_NAME_LEN,
        });
    }
    Ok(())
}
