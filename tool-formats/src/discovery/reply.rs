//! The answer to a search the application ran ([`SearchTool::Ours`](super::SearchTool::Ours)),
//! in each provider's shape. `found` is what the search returned, best first (the
//! registry's `search_filtered` under the caller's filter); a name the list did not offer is
//! left out here too, whatever the search said.

use serde_json::{Value, json};
use toolwright_core::ToolResult;

use super::parse::SearchRequest;
use super::plan::DeferredTools;

/// The offered names among `found`, in order, without repeats.
fn offered<'a>(found: &'a [String], list: &DeferredTools) -> Vec<&'a str> {
    let mut names: Vec<&str> = Vec::new();
    for name in found {
        if list.offers(name) && !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    names
}

/// Anthropic: a `tool_result` block holding one `tool_reference` per tool found, which
/// makes Anthropic load those deferred definitions (custom tool search,
/// <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>); put it
/// in the next `user` message. With nothing found, a text block says so.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::SearchRequest;
/// use toolwright_formats::discovery::reply::anthropic_search_result;
/// use toolwright_formats::discovery::{DeferPlan, SearchTool, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = Tool::builder("get_weather").description("Weather.").handler(|_| async { "sun" }).build().unwrap();
/// let list = export_deferred(&[tool], Format::Anthropic, &DeferPlan::new().search(SearchTool::Ours)).unwrap();
/// let request = SearchRequest { id: "toolu_1".into(), query: "weather".into(), limit: 5 };
/// let block = anthropic_search_result(&request, &["get_weather".into(), "not_offered".into()], &list);
/// assert_eq!(block, json!({"type": "tool_result", "tool_use_id": "toolu_1",
///     "content": [{"type": "tool_reference", "tool_name": "get_weather"}]}));
/// ```
pub fn anthropic_search_result(
    request: &SearchRequest,
    found: &[String],
    list: &DeferredTools,
) -> Value {
    let names = offered(found, list);
    let content: Vec<Value> = if names.is_empty() {
        vec![json!({"type": "text", "text": nothing_found(&request.query)})]
    } else {
        names
            .iter()
            .map(|name| json!({"type": "tool_reference", "tool_name": name}))
            .collect()
    };
    json!({"type": "tool_result", "tool_use_id": request.id, "content": content})
}

/// OpenAI Responses: the `tool_search_output` item (`"execution": "client"`) carrying the
/// found functions' definitions, each in its namespace as exported, for the next request's
/// `input` (<https://developers.openai.com/api/docs/guides/tools-tool-search>).
///
/// ```
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::SearchRequest;
/// use toolwright_formats::discovery::reply::responses_search_output;
/// use toolwright_formats::discovery::{DeferPlan, SearchTool, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = Tool::builder("get_weather").description("Weather.").handler(|_| async { "sun" }).build().unwrap();
/// let list = export_deferred(&[tool], Format::OpenAiResponses, &DeferPlan::new().search(SearchTool::Ours)).unwrap();
/// let request = SearchRequest { id: "call_1".into(), query: "weather".into(), limit: 5 };
/// let item = responses_search_output(&request, &["get_weather".into()], &list);
/// assert_eq!(item["type"], "tool_search_output");
/// assert_eq!(item["tools"][0]["name"], "get_weather");
/// assert_eq!(item["execution"], "client");
/// ```
pub fn responses_search_output(
    request: &SearchRequest,
    found: &[String],
    list: &DeferredTools,
) -> Value {
    let mut tools: Vec<Value> = Vec::new();
    for name in offered(found, list) {
        let Some(entry) = list.entries.get(name) else {
            continue;
        };
        // As exported, `defer_loading` included: the shape OpenAI's own Codex client sends.
        let definition = entry.definition.clone();
        match &entry.namespace {
            Some(namespace) => {
                let existing = tools.iter_mut().find(|tool| {
                    tool["type"] == "namespace" && tool["name"].as_str() == Some(namespace)
                });
                match existing {
                    Some(group) => {
                        if let Some(members) = group["tools"].as_array_mut() {
                            members.push(definition);
                        }
                    }
                    None => tools.push(json!({
                        "type": "namespace",
                        "name": namespace,
                        "description": list.namespaces.get(namespace).cloned().unwrap_or_default(),
                        "tools": [definition],
                    })),
                }
            }
            None => tools.push(definition),
        }
    }
    json!({
        "type": "tool_search_output",
        "call_id": request.id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    })
}

/// Chat Completions and Gemini: the result of the `search_tools` call, naming the tools
/// found with their descriptions. Their full schemas go into the next request: add the
/// names to [`DeferPlan::loaded`](super::DeferPlan::loaded) and export again. Send it with
/// the provider's usual result writer (`chat_tool_messages`, `function_responses`).
///
/// ```
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::SearchRequest;
/// use toolwright_formats::discovery::reply::search_result;
/// use toolwright_formats::discovery::{DeferPlan, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = Tool::builder("get_weather").description("Weather.").handler(|_| async { "sun" }).build().unwrap();
/// let list = export_deferred(&[tool], Format::OpenAiChat, &DeferPlan::new()).unwrap();
/// let request = SearchRequest { id: "c1".into(), query: "weather".into(), limit: 5 };
/// let result = search_result(&request, &["get_weather".into()], &list);
/// assert!(result.success);
/// assert_eq!(result.structured_content.unwrap()["tools"][0]["name"], "get_weather");
/// ```
pub fn search_result(
    request: &SearchRequest,
    found: &[String],
    list: &DeferredTools,
) -> ToolResult {
    let names = offered(found, list);
    if names.is_empty() {
        return ToolResult::success(request.id.clone(), nothing_found(&request.query));
    }
    let tools: Vec<Value> = names
        .iter()
        .filter_map(|name| list.entries.get(*name).map(|entry| (name, entry)))
        .map(|(name, entry)| json!({"name": name, "description": entry.description}))
        .collect();
    let structured = json!({
        "tools": tools,
        "note": "These tools are loaded with their full parameters for your next step; the tool list is still partial: search again for anything else.",
    });
    let mut result = ToolResult::success(request.id.clone(), structured.to_string());
    result.structured_content = Some(structured);
    result
}

/// What the model reads when nothing matched.
fn nothing_found(query: &str) -> String {
    let shown = super::plan::shown(query);
    format!(
        "No tool matches `{shown}`. The tool list is partial: try other words (a verb and an object, e.g. `create issue`)."
    )
}
