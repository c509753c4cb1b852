//! A model's turn read against the [`DeferredTools`] it was given: calls named as ours,
//! search requests to answer, and the tools a search loaded, each as a [`Step`]. A name the
//! list did not offer is never turned into a call.

use serde_json::Value;
use toolwright_core::ToolCall;

use super::plan::{DeferredTools, DiscoveryError, MAX_QUERY_LEN, OUR_SEARCH_TOOL, SearchTool};
use crate::providers::string_field as text;
use crate::providers::{ProviderError, anthropic, gemini, openai};

/// How many tools a search returns when the model does not say (Anthropic's search returns
/// 3 to 5).
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// The most tools one search returns.
pub const MAX_SEARCH_LIMIT: usize = 10;

/// One thing a model's turn holds, for the application to act on.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// A call of a tool the list offered, under our name: run it through the executor.
    Call(ToolCall),
    /// The model asked our search: answer it with [`reply`](super::reply).
    Search(SearchRequest),
    /// The provider ran its own search (Anthropic's `server_tool_use`, OpenAI's hosted
    /// `tool_search_call`): nothing to answer.
    Searched {
        /// The search's id.
        id: String,
        /// What was searched: the query, the pattern, or the arguments as JSON.
        query: String,
    },
    /// The tools a search loaded (Anthropic `tool_reference` blocks, OpenAI
    /// `tool_search_output` items), under our names; names the list did not offer are in
    /// `refused`, not loaded.
    Loaded {
        /// The search's id.
        id: String,
        /// The tools loaded, our names.
        tools: Vec<String>,
        /// Names the result gave that the list did not offer (cut when long).
        refused: Vec<String>,
    },
    /// A search that failed at the provider (Anthropic's `tool_search_tool_result_error`).
    SearchFailed {
        /// The search's id.
        id: String,
        /// The provider's error code (`invalid_tool_input`, `unavailable`, ...).
        code: String,
    },
    /// A call or a search refused: answer the call `id` with `error` as a failed result.
    Refused {
        /// The call's id.
        id: String,
        /// Why.
        error: DiscoveryError,
    },
}

/// A search the application answers (our `search_tools`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The call's id, echoed in the answer.
    pub id: String,
    /// What to search for.
    pub query: String,
    /// How many tools to return (1 to [`MAX_SEARCH_LIMIT`]).
    pub limit: usize,
}

/// An Anthropic assistant message (or its content array) read against `list`: `tool_use`
/// blocks (our `search_tools` as a [`Step::Search`]), `server_tool_use` and
/// `tool_search_tool_result` blocks of Anthropic's tool search; a user message's
/// `tool_result` blocks holding `tool_reference`s (our own answers) are read as
/// [`Step::Loaded`] too.
///
/// # Errors
///
/// [`DiscoveryError::Malformed`] when the content is not an array of blocks.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::{Step, parse_anthropic};
/// use toolwright_formats::discovery::{DeferPlan, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let weather = Tool::builder("get_weather").description("Weather.").handler(|_| async { "sun" }).build().unwrap();
/// let list = export_deferred(&[weather], Format::Anthropic, &DeferPlan::new()).unwrap();
/// let message = json!({"role": "assistant", "content": [
///     {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "weather"}},
///     {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {
///         "type": "tool_search_tool_search_result",
///         "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}, {"type": "tool_reference", "tool_name": "rm_rf"}]}},
///     {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Oslo"}}
/// ]});
/// let steps = parse_anthropic(&message, &list).unwrap();
/// assert!(matches!(&steps[1], Step::Loaded { tools, refused, .. } if tools == &["get_weather"] && refused == &["rm_rf"]));
/// assert!(matches!(&steps[2], Step::Call(call) if call.name == "get_weather"));
/// ```
pub fn parse_anthropic(message: &Value, list: &DeferredTools) -> Result<Vec<Step>, DiscoveryError> {
    const WHAT: &str = "Anthropic message";
    let blocks = match message.get("content").unwrap_or(message) {
        Value::Array(blocks) => blocks,
        Value::String(_) => return Ok(Vec::new()),
        _ => {
            return Err(
                ProviderError::new(WHAT, "content", "expected an array of content blocks").into(),
            );
        }
    };
    let mut steps = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let id = text(block, "id").or_else(|| text(block, "tool_use_id"));
        let id = id.map_or_else(|| format!("toolu_{index}"), str::to_owned);
        match kind {
            "tool_use" => {
                // The existing reader keeps one place that knows a tool_use block.
                let calls = anthropic::parse_tool_uses(&Value::Array(vec![block.clone()]))?;
                for mut call in calls {
                    call.id.clone_from(&id);
                    steps.push(step_of_call(call, None, list));
                }
            }
            "server_tool_use" => {
                let input = block.get("input").unwrap_or(&Value::Null);
                let query = text(input, "query")
                    .or_else(|| text(input, "pattern"))
                    .map_or_else(|| input.to_string(), str::to_owned);
                steps.push(Step::Searched { id, query });
            }
            "tool_search_tool_result" => {
                let content = block.get("content").unwrap_or(&Value::Null);
                match content.get("type").and_then(Value::as_str) {
                    Some("tool_search_tool_search_result") => {
                        let references = content.get("tool_references").unwrap_or(&Value::Null);
                        steps.push(loaded(id, reference_names(references), list));
                    }
                    Some("tool_search_tool_result_error") => steps.push(Step::SearchFailed {
                        id,
                        code: text(content, "error_code").unwrap_or("unknown").to_owned(),
                    }),
                    _ => {
                        return Err(ProviderError::new(
                            WHAT,
                            format!("content[{index}].content"),
                            "expected a tool search result or error",
                        )
                        .into());
                    }
                }
            }
            "tool_result" => {
                if let Some(Value::Array(parts)) = block.get("content") {
                    let names = reference_names(&Value::Array(parts.clone()));
                    if !names.is_empty() {
                        steps.push(loaded(id, names, list));
                    }
                }
            }
            _ if !block.is_object() => {
                return Err(ProviderError::new(
                    WHAT,
                    format!("content[{index}]"),
                    "expected a content block object",
                )
                .into());
            }
            _ => {}
        }
    }
    Ok(steps)
}

/// An OpenAI Responses output (the response or its `output` array) read against `list`:
/// `function_call` items (their `namespace` and `name` mapped back to our name),
/// `tool_search_call` items (client-executed: a [`Step::Search`]; hosted: a
/// [`Step::Searched`]) and `tool_search_output` items (the functions they load).
///
/// # Errors
///
/// [`DiscoveryError::Malformed`] when the output is not an array of objects.
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::{Step, parse_responses};
/// use toolwright_formats::discovery::{DeferPlan, Grouping, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = Tool::builder("crm_get_customer").description("A customer.").handler(|_| async { "Ada" }).build().unwrap();
/// let plan = DeferPlan::new().group_by(Grouping::Prefixes(vec!["crm".into()]));
/// let list = export_deferred(&[tool], Format::OpenAiResponses, &plan).unwrap();
/// let output = json!({"output": [
///     {"type": "function_call", "id": "fc_1", "call_id": "call_1", "namespace": "crm", "name": "get_customer", "arguments": "{}"},
///     {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "get_customer", "arguments": "{}"}
/// ]});
/// let steps = parse_responses(&output, &list).unwrap();
/// assert!(matches!(&steps[0], Step::Call(call) if call.name == "crm_get_customer"));
/// assert!(matches!(&steps[1], Step::Refused { id, .. } if id == "call_2"));
/// ```
pub fn parse_responses(output: &Value, list: &DeferredTools) -> Result<Vec<Step>, DiscoveryError> {
    const WHAT: &str = "OpenAI responses output";
    let Value::Array(items) = output.get("output").unwrap_or(output) else {
        return Err(ProviderError::new(WHAT, "output", "expected an array of output items").into());
    };
    let mut steps = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if !item.is_object() {
            return Err(ProviderError::new(
                WHAT,
                format!("output[{index}]"),
                "expected an output item object",
            )
            .into());
        }
        let id = text(item, "call_id")
            .or_else(|| text(item, "id"))
            .map_or_else(|| format!("call_{index}"), str::to_owned);
        match text(item, "type").unwrap_or_default() {
            "function_call" => {
                let mut calls =
                    openai::parse_responses_tool_calls(&Value::Array(vec![item.clone()]))?;
                if let Some(mut call) = calls.pop() {
                    call.id.clone_from(&id);
                    // The plain reader names it `namespace.name`; here the pair is resolved.
                    text(item, "name")
                        .unwrap_or_default()
                        .clone_into(&mut call.name);
                    steps.push(step_of_call(call, text(item, "namespace"), list));
                }
            }
            "tool_search_call" => {
                let arguments = match item.get("arguments") {
                    Some(Value::String(raw)) => serde_json::from_str(raw).unwrap_or(Value::Null),
                    Some(other) => other.clone(),
                    None => Value::Null,
                };
                if text(item, "execution") == Some("client") && list.search == SearchTool::Ours {
                    steps.push(search_step(id, &arguments));
                } else {
                    let query = text(&arguments, "query")
                        .map_or_else(|| arguments.to_string(), str::to_owned);
                    steps.push(Step::Searched { id, query });
                }
            }
            "tool_search_output" => {
                let mut names = Vec::new();
                for tool in item
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match text(tool, "type") {
                        Some("namespace") => {
                            let namespace = text(tool, "name");
                            for member in tool
                                .get("tools")
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                            {
                                names.push((namespace, text(member, "name").unwrap_or_default()));
                            }
                        }
                        _ => names.push((None, text(tool, "name").unwrap_or_default())),
                    }
                }
                let mut tools = Vec::new();
                let mut refused = Vec::new();
                for (namespace, name) in names {
                    match list.resolve(namespace, name) {
                        Ok(ours) => tools.push(ours.to_owned()),
                        Err(_) => refused.push(super::plan::shown(name)),
                    }
                }
                steps.push(Step::Loaded { id, tools, refused });
            }
            _ => {}
        }
    }
    Ok(steps)
}

/// A chat completion (or its assistant message) read against `list`: our `search_tools`
/// calls as [`Step::Search`], the others as calls of offered tools.
///
/// # Errors
///
/// [`DiscoveryError::Malformed`] as [`openai::parse_chat_tool_calls`].
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::{Step, parse_chat};
/// use toolwright_formats::discovery::{DeferPlan, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = Tool::builder("get_weather").description("Weather.").handler(|_| async { "sun" }).build().unwrap();
/// let list = export_deferred(&[tool], Format::OpenAiChat, &DeferPlan::new()).unwrap();
/// let message = json!({"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
///     "function": {"name": "search_tools", "arguments": "{\"query\": \"weather\"}"}}]});
/// let steps = parse_chat(&message, &list).unwrap();
/// assert!(matches!(&steps[0], Step::Search(search) if search.query == "weather" && search.limit == 5));
/// ```
pub fn parse_chat(message: &Value, list: &DeferredTools) -> Result<Vec<Step>, DiscoveryError> {
    let calls = openai::parse_chat_tool_calls(message)?;
    Ok(calls
        .into_iter()
        .map(|call| step_of_call(call, None, list))
        .collect())
}

/// A Gemini response (or content, or parts) read against `list`, as [`parse_chat`].
///
/// # Errors
///
/// [`DiscoveryError::Malformed`] as [`gemini::parse_function_calls`].
///
/// ```
/// use toolwright_core::serde_json::json;
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::parse::{Step, parse_gemini};
/// use toolwright_formats::discovery::{DeferPlan, export_deferred};
/// use toolwright_formats::schema::Format;
///
/// let tool = Tool::builder("get_weather").description("Weather.").handler(|_| async { "sun" }).build().unwrap();
/// let list = export_deferred(&[tool], Format::Gemini, &DeferPlan::new()).unwrap();
/// let response = json!({"candidates": [{"content": {"role": "model", "parts": [
///     {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]}}]});
/// assert!(matches!(&parse_gemini(&response, &list).unwrap()[0], Step::Call(call) if call.name == "get_weather"));
/// ```
pub fn parse_gemini(response: &Value, list: &DeferredTools) -> Result<Vec<Step>, DiscoveryError> {
    let calls = gemini::parse_function_calls(response)?;
    Ok(calls
        .into_iter()
        .map(|call| step_of_call(call, None, list))
        .collect())
}

/// A call as a step: our search, a call of an offered tool, or refused.
fn step_of_call(call: ToolCall, namespace: Option<&str>, list: &DeferredTools) -> Step {
    if namespace.is_none() && call.name == OUR_SEARCH_TOOL && list.search == SearchTool::Ours {
        return search_step(call.id, &call.arguments);
    }
    match list.resolve(namespace, &call.name) {
        Ok(ours) => {
            let ours = ours.to_owned();
            Step::Call(ToolCall { name: ours, ..call })
        }
        Err(error) => Step::Refused { id: call.id, error },
    }
}

/// Our search's arguments as a request, or refused when the query is missing or too long.
fn search_step(id: String, arguments: &Value) -> Step {
    let query = text(arguments, "query").unwrap_or_default();
    if query.len() > MAX_QUERY_LEN {
        return Step::Refused {
            id,
            error: DiscoveryError::QueryTooLong {
                len: query.len(),
                max: MAX_QUERY_LEN,
            },
        };
    }
    let limit =
        arguments
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_SEARCH_LIMIT, |limit| {
                usize::try_from(limit)
                    .unwrap_or(MAX_SEARCH_LIMIT)
                    .clamp(1, MAX_SEARCH_LIMIT)
            });
    Step::Search(SearchRequest {
        id,
        query: query.to_owned(),
        limit,
    })
}

/// The `tool_name`s of an array of `tool_reference` blocks (others skipped).
fn reference_names(references: &Value) -> Vec<String> {
    references
        .as_array()
        .into_iter()
        .flatten()
        .filter(|reference| text(reference, "type") == Some("tool_reference"))
        .filter_map(|reference| text(reference, "tool_name"))
        .map(str::to_owned)
        .collect()
}

/// The loaded names split into offered and refused.
fn loaded(id: String, names: Vec<String>, list: &DeferredTools) -> Step {
    let (tools, refused): (Vec<String>, Vec<String>) =
        names.into_iter().partition(|name| list.offers(name));
    let refused = refused
        .iter()
        .map(|name| super::plan::shown(name))
        .collect();
    Step::Loaded { id, tools, refused }
}
