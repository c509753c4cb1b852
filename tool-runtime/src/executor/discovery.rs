//! Search-first tool lists: the model is shown a small core and three meta-tools
//! (`search_tools`, `describe_tool`, `call_tool`) instead of every tool, and finds the rest.
//!
//! What is *offered* does not change, only what is *listed*: every call still goes through
//! the executor under the real tool's own policy (ceiling, approval, limits, hooks, audit).
//! `call_tool {name, arguments}` is unwrapped before the policy runs, so an approval, a
//! call count and an audit line name the real tool, and the call is counted once. The
//! search and the description read the call's catalog, so a tool above the caller's
//! ceiling (or not offered) is never found, described or reached through `call_tool`.

use serde_json::{Map, Value, json};
use toolwright_core::{Catalog, CatalogEntry, SafetyLevel, Tool, ToolContext, ToolError};
use toolwright_formats::discovery::{DeferPlan, MAX_QUERY_LEN};

/// The meta-tool that finds tools.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The meta-tool that gives one tool's full description and parameter schema.
pub const DESCRIBE_TOOL: &str = "describe_tool";
/// The meta-tool that calls a tool found by search, for clients that call only listed tools.
pub const CALL_TOOL: &str = "call_tool";

/// The most tools one search returns, whatever the model asks.
const MAX_SEARCH_LIMIT: usize = 20;

/// What the model is told, in a search-first list, about the list itself (the Shopware
/// #18327 trap: a model treats a partial list as complete unless told).
pub const SEARCH_FIRST_INSTRUCTIONS: &str = "The tool list is partial: it shows a few core \
tools, and many more can be called. Before saying that no tool can do something, call \
`search_tools` with what you want to do; `describe_tool` gives a found tool's parameters; call \
it by its name, or through `call_tool` with {\"name\": ..., \"arguments\": {...}}.";

/// How the executor's tools are listed to a model or an MCP client
/// ([`ExecutorBuilder::discovery`](super::ExecutorBuilder::discovery)).
///
/// ```
/// use std::sync::Arc;
/// use toolwright_core::Tool;
/// use toolwright_formats::discovery::{DeferPlan, MAX_QUERY_LEN};
/// use toolwright_runtime::{Discovery, Executor, ToolRegistry};
///
/// let registry = Arc::new(ToolRegistry::new());
/// for name in ["read_note", "write_note", "purge_notes"] {
///     registry.register(Tool::builder(name).description("Notes.")
///         .handler(|_| async { "ok" }).build().unwrap()).unwrap();
/// }
/// let executor = Executor::builder(registry)
///     .discovery(Discovery::search_first(DeferPlan::new().core_names(["read_note"])))
///     .build();
/// let listed: Vec<String> = executor.listed_tools(executor.max_safety())
///     .iter().map(|tool| tool.name().to_owned()).collect();
/// assert_eq!(listed, ["read_note", "search_tools", "describe_tool", "call_tool"]);
/// ```
#[derive(Debug, Clone, Default)]
pub enum Discovery {
    /// Every offered tool is listed (the default).
    #[default]
    Full,
    /// The core the plan chooses (by name, category or priority), then the meta-tools.
    SearchFirst(Box<SearchFirst>),
}

/// The parts of a search-first list ([`Discovery::search_first`]).
#[derive(Debug, Clone)]
pub struct SearchFirst {
    plan: DeferPlan,
    meta: [Tool; 3],
}

impl Discovery {
    /// A search-first list whose core is what `plan` keeps loaded
    /// ([`DeferPlan::core_names`], [`DeferPlan::core_categories`],
    /// [`DeferPlan::core_priority_at_least`]).
    pub fn search_first(plan: DeferPlan) -> Self {
        Discovery::SearchFirst(Box::new(SearchFirst {
            plan,
            meta: [search_tool(), describe_tool(), call_tool()],
        }))
    }

    /// Whether the list is search-first.
    pub fn is_search_first(&self) -> bool {
        matches!(self, Discovery::SearchFirst(_))
    }

    /// The plan choosing the core, in a search-first list.
    pub fn plan(&self) -> Option<&DeferPlan> {
        match self {
            Discovery::Full => None,
            Discovery::SearchFirst(first) => Some(&first.plan),
        }
    }

    /// The meta-tools a search-first list adds (none for a full list). In a search-first
    /// list they take their three names: a registered tool of the same name (the standard
    /// set's `search_tools` and `describe_tool`) is neither listed nor called.
    pub fn meta_tools(&self) -> &[Tool] {
        match self {
            Discovery::Full => &[],
            Discovery::SearchFirst(first) => &first.meta,
        }
    }

    /// The list shown for `available` (the tools offered, by priority then name): all of
    /// them, or the core then the meta-tools.
    pub(super) fn listed(&self, available: Vec<Tool>) -> Vec<Tool> {
        let Discovery::SearchFirst(first) = self else {
            return available;
        };
        let mut listed: Vec<Tool> = available
            .into_iter()
            .filter(|tool| first.plan.is_core(tool) && !is_meta_name(tool.name()))
            .collect();
        listed.extend(first.meta.iter().cloned());
        listed
    }

    /// The meta-tool named `name`, in a search-first list (before the registry's tools).
    pub(super) fn built_in(&self, name: &str) -> Option<&Tool> {
        self.meta_tools().iter().find(|tool| tool.name() == name)
    }
}

fn is_meta_name(name: &str) -> bool {
    [SEARCH_TOOLS, DESCRIBE_TOOL, CALL_TOOL].contains(&name)
}

/// The call inside a `call_tool` call: the real tool's name and arguments, or why the
/// wrapper is malformed (for the model to fix).
pub(super) fn unwrap_call(arguments: Value) -> Result<(String, Value), String> {
    let Value::Object(mut object) = arguments else {
        return Err(format!(
            "`{CALL_TOOL}` takes an object {{\"name\": ..., \"arguments\": {{...}}}}"
        ));
    };
    let name = match object.remove("name") {
        Some(Value::String(name)) => name,
        _ => {
            return Err(format!(
                "`{CALL_TOOL}` needs `name`, the name of the tool to call (as `search_tools` \
                 returned it)"
            ));
        }
    };
    // Refused before any lookup: a suggestion for a huge name would cost an edit distance
    // against every tool.
    if name.len() > toolwright_names::MAX_NAME_LEN {
        return Err(format!(
            "`{CALL_TOOL}`'s `name` is {} bytes long; tool names are at most {} characters \
             (`search_tools` gives them)",
            name.len(),
            toolwright_names::MAX_NAME_LEN
        ));
    }
    if name == CALL_TOOL {
        return Err(format!(
            "`{CALL_TOOL}` cannot call itself; name the tool to call"
        ));
    }
    let arguments = match object.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(arguments @ Value::Object(_)) => arguments,
        Some(_) => {
            return Err(format!(
                "`{CALL_TOOL}`'s `arguments` must be an object of the tool's parameters"
            ));
        }
    };
    Ok((name, arguments))
}

/// The call's catalog: the tools it may see (under its ceiling, among those offered).
fn catalog(ctx: &ToolContext) -> Result<&Catalog, ToolError> {
    ctx.catalog()
        .ok_or_else(|| ToolError::new("no tool catalog is available; run this under an executor"))
}

/// The first sentence of a description.
fn first_sentence(description: &str) -> &str {
    let line = description.lines().next().unwrap_or("");
    line.find(". ").map_or(line, |end| &line[..=end])
}

fn found(entry: &CatalogEntry, score: f64) -> Value {
    let mut hit = json!({
        "name": entry.name(),
        "summary": first_sentence(entry.description()),
        "score": (score * 100.0).round() / 100.0,
    });
    if entry.safety() > SafetyLevel::Safe {
        hit["safety"] = json!(entry.safety());
    }
    hit
}

fn search_tool() -> Tool {
    let built = Tool::builder(SEARCH_TOOLS)
        .description(format!(
            "Find tools by what you want to do. The tool list you were given is partial: search \
             here before concluding that no tool fits. Returns the best matches (name, summary); \
             `{DESCRIBE_TOOL}` gives one's parameters."
        ))
        .categories(["introspection"])
        .input_schema(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What you want to do, in any words"},
                "limit": {"type": "integer", "minimum": 1,
                          "description": format!("How many tools to return (default 5); at most {MAX_SEARCH_LIMIT}, a larger number counts as {MAX_SEARCH_LIMIT}")}
            },
            "required": ["query"]
        }))
        .handler_with_context(|ctx: ToolContext, args: Map<String, Value>| async move {
            let query = args.get("query").and_then(Value::as_str).unwrap_or("");
            // As the providers' searches: a query is a sentence, not a document.
            if query.len() > MAX_QUERY_LEN {
                return Err(ToolError::new(format!(
                    "the query is {} bytes long; say what you want to do in at most {MAX_QUERY_LEN}",
                    query.len()
                )));
            }
            let limit = args
                .get("limit")
                .and_then(Value::as_u64)
                .map_or(5, |limit| limit.clamp(1, MAX_SEARCH_LIMIT as u64) as usize);
            let hits = catalog(&ctx)?.search(query, limit);
            let tools: Vec<Value> = hits
                .iter()
                .map(|hit| found(&hit.entry, hit.score))
                .collect();
            let note = if tools.is_empty() {
                "no tool matched; try other words"
            } else {
                "call one by its name, or through call_tool; describe_tool gives its parameters"
            };
            Ok::<Value, ToolError>(json!({"tools": tools, "note": note}))
        })
        .build();
    built_in_tool(built)
}

fn describe_tool() -> Tool {
    let built = Tool::builder(DESCRIBE_TOOL)
        .description(
            "Give one tool's full description, safety level and the JSON Schema of its \
             parameters, for a tool found with `search_tools`.",
        )
        .categories(["introspection"])
        .input_schema(json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The tool's name"}},
            "required": ["name"]
        }))
        .handler_with_context(|ctx: ToolContext, args: Map<String, Value>| async move {
            let name = args.get("name").and_then(Value::as_str).unwrap_or("");
            // Looked up exactly: a name the caller may not see is not there at all.
            let Some(entry) = catalog(&ctx)?.get(name) else {
                return Err(ToolError::new(format!(
                    "no tool named `{}` is available; `{SEARCH_TOOLS}` finds tools",
                    name.chars().take(64).collect::<String>()
                )));
            };
            Ok(json!({
                "name": entry.name(),
                "description": entry.description(),
                "safety": entry.safety(),
                "categories": entry.categories(),
                "input_schema": entry.input_schema(),
            }))
        })
        .build();
    built_in_tool(built)
}

fn call_tool() -> Tool {
    // Never run itself: the executor unwraps a `call_tool` call into the real one first.
    let built = Tool::builder(CALL_TOOL)
        .description(format!(
            "Call a tool found with `{SEARCH_TOOLS}` that is not in your list, by its name and \
             arguments. It runs under that tool's own rules (a dangerous tool still asks for \
             approval)."
        ))
        .categories(["introspection"])
        .input_schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name"},
                "arguments": {"type": "object", "description": "The tool's arguments"}
            },
            "required": ["name"]
        }))
        .handler(|_| async {
            Err::<Value, ToolError>(ToolError::new(
                "call_tool is handled by the executor, which had no search-first list here",
            ))
        })
        .build();
    built_in_tool(built)
}

/// The built-in tools have fixed, valid names and schemas: a failure is a bug here, caught
/// by every test that makes a search-first executor.
fn built_in_tool(built: Result<Tool, toolwright_core::ToolDefinitionError>) -> Tool {
    match built {
        Ok(tool) => tool,
        Err(error) => panic!("a built-in discovery tool is invalid: {error}"),
    }
}
