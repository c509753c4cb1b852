//! Shared pieces of the benchmarks: the tools measured, written four ways, and an rmcp
//! server whose `#[tool_router]` dispatch is measured beside ours; in [`serving`], what the
//! serving benchmark's clients share.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, JsonObject, NumberOrString, RequestId};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toolwright_core::{Tool, ToolError};

// The layers, lowest first (no module imports one listed after it): serving.
pub mod serving;

/// The function every dispatch benchmark ends in.
#[inline(never)]
pub fn add_numbers(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Add two integers.
#[toolwright_core::tool]
pub fn add(a: i64, b: i64) -> i64 {
    add_numbers(a, b)
}

/// Add two integers, as a sync tool that declares itself quick (`inline`: no thread hop in
/// the executor).
#[toolwright_core::tool(inline)]
pub fn add_inline(a: i64, b: i64) -> i64 {
    add_numbers(a, b)
}

/// Add two integers, as an async tool (no thread hop in the executor).
#[toolwright_core::tool]
pub async fn add_async(a: i64, b: i64) -> i64 {
    add_numbers(a, b)
}

/// A nested parameter of the ten-parameter tool.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
pub struct Window {
    /// First line.
    pub start: u32,
    /// Last line.
    pub end: u32,
}

/// The parameters of the ten-parameter tool, as a hand-written struct.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    pub query: String,
    pub paths: Vec<String>,
    pub window: Window,
    pub limit: u32,
    pub offset: Option<u32>,
    pub case_sensitive: bool,
    pub regex: Option<bool>,
    pub weight: f64,
    pub tag: Option<String>,
    pub depth: u8,
}

/// The work of the ten-parameter tool: small, so dispatch dominates.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn search_work(
    query: &str,
    paths: &[String],
    window: &Window,
    limit: u32,
    offset: Option<u32>,
    case_sensitive: bool,
    regex: Option<bool>,
    weight: f64,
    tag: Option<&str>,
    depth: u8,
) -> usize {
    query.len()
        + paths.len()
        + (window.end - window.start) as usize
        + limit as usize
        + offset.unwrap_or(0) as usize
        + usize::from(case_sensitive)
        + usize::from(regex.unwrap_or(false))
        + weight as usize
        + tag.map_or(0, str::len)
        + depth as usize
}

/// Search with ten parameters (a benchmark of argument handling).
#[toolwright_core::tool]
#[allow(clippy::too_many_arguments)]
pub fn search_ten(
    query: String,
    paths: Vec<String>,
    window: Window,
    limit: u32,
    offset: Option<u32>,
    case_sensitive: bool,
    regex: Option<bool>,
    weight: f64,
    tag: Option<String>,
    depth: u8,
) -> usize {
    search_work(
        &query,
        &paths,
        &window,
        limit,
        offset,
        case_sensitive,
        regex,
        weight,
        tag.as_deref(),
        depth,
    )
}

/// The ten-parameter tool as a sync tool that declares itself quick (`inline`).
#[toolwright_core::tool(inline)]
#[allow(clippy::too_many_arguments)]
pub fn search_ten_inline(
    query: String,
    paths: Vec<String>,
    window: Window,
    limit: u32,
    offset: Option<u32>,
    case_sensitive: bool,
    regex: Option<bool>,
    weight: f64,
    tag: Option<String>,
    depth: u8,
) -> usize {
    search_work(
        &query,
        &paths,
        &window,
        limit,
        offset,
        case_sensitive,
        regex,
        weight,
        tag.as_deref(),
        depth,
    )
}

/// The ten-parameter tool as an async tool (no thread hop in the executor).
#[toolwright_core::tool]
#[allow(clippy::too_many_arguments)]
pub async fn search_ten_async(
    query: String,
    paths: Vec<String>,
    window: Window,
    limit: u32,
    offset: Option<u32>,
    case_sensitive: bool,
    regex: Option<bool>,
    weight: f64,
    tag: Option<String>,
    depth: u8,
) -> usize {
    search_work(
        &query,
        &paths,
        &window,
        limit,
        offset,
        case_sensitive,
        regex,
        weight,
        tag.as_deref(),
        depth,
    )
}

/// The hand-written baseline for `add`: serde_json into a struct, call, format the result.
pub fn add_by_hand(arguments: &Map<String, Value>) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args {
        a: i64,
        b: i64,
    }
    let args: Args =
        serde_json::from_value(Value::Object(arguments.clone())).map_err(|e| e.to_string())?;
    Ok(add_numbers(args.a, args.b).to_string())
}

/// The hand-written baseline for the ten-parameter tool.
pub fn search_by_hand(arguments: &Map<String, Value>) -> Result<String, String> {
    let p: SearchParams =
        serde_json::from_value(Value::Object(arguments.clone())).map_err(|e| e.to_string())?;
    Ok(search_work(
        &p.query,
        &p.paths,
        &p.window,
        p.limit,
        p.offset,
        p.case_sensitive,
        p.regex,
        p.weight,
        p.tag.as_deref(),
        p.depth,
    )
    .to_string())
}

pub fn add_arguments() -> Map<String, Value> {
    json!({"a": 40, "b": 2})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

pub fn search_arguments() -> Map<String, Value> {
    json!({
        "query": "fn main", "paths": ["src", "tests", "benches"], "window": {"start": 1, "end": 40},
        "limit": 10, "offset": 5, "case_sensitive": true, "regex": false, "weight": 1.5,
        "tag": "rust", "depth": 3
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

/// rmcp's way: the same functions as `#[tool]` methods of a `#[tool_router]` server.
#[derive(Clone)]
pub struct RmcpServer {
    tool_router: ToolRouter<RmcpServer>,
}

/// `add`'s parameters, for rmcp.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddParams {
    pub a: i64,
    pub b: i64,
}

#[tool_router]
impl RmcpServer {
    pub fn new() -> Self {
        RmcpServer {
            tool_router: Self::tool_router(),
        }
    }

    /// Add two integers.
    #[tool(description = "Add two integers.")]
    fn add(&self, Parameters(AddParams { a, b }): Parameters<AddParams>) -> String {
        add_numbers(a, b).to_string()
    }

    /// Search with ten parameters.
    #[tool(description = "Search with ten parameters.")]
    fn search_ten(&self, Parameters(p): Parameters<SearchParams>) -> String {
        search_work(
            &p.query,
            &p.paths,
            &p.window,
            p.limit,
            p.offset,
            p.case_sensitive,
            p.regex,
            p.weight,
            p.tag.as_deref(),
            p.depth,
        )
        .to_string()
    }
}

impl Default for RmcpServer {
    fn default() -> Self {
        RmcpServer::new()
    }
}

#[tool_handler]
impl ServerHandler for RmcpServer {}

/// A server-side request context for calling rmcp's router directly: rmcp only builds
/// peers inside a running service, so one is started over an in-memory pipe and its peer kept.
pub struct RmcpHarness {
    pub server: RmcpServer,
    context: RequestContext<RoleServer>,
    _client: RunningService<rmcp::RoleClient, ()>,
    _running: RunningService<RoleServer, RmcpServer>,
}

impl RmcpHarness {
    pub async fn start() -> RmcpHarness {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let server = RmcpServer::new();
        let serving = tokio::spawn(server.clone().serve(server_io));
        let client = ().serve(client_io).await.expect("rmcp client starts");
        let running = serving.await.expect("join").expect("rmcp server starts");
        let peer = running.peer().clone();
        let context = RequestContext::new(RequestId::from(NumberOrString::Number(1)), peer);
        RmcpHarness {
            server,
            context,
            _client: client,
            _running: running,
        }
    }

    /// One dispatch through rmcp's `ToolRouter::call`.
    pub async fn call(
        &self,
        name: &'static str,
        arguments: JsonObject,
    ) -> rmcp::model::CallToolResponse {
        let params = CallToolRequestParams::new(Cow::Borrowed(name)).with_arguments(arguments);
        let context = ToolCallContext::new(&self.server, params, self.context.clone());
        match self.server.tool_router.call(context).await {
            Ok(response) => response,
            Err(error) => panic!("rmcp dispatch failed: {error}"),
        }
    }
}

/// Runtime-built tools for the scale benchmarks: `count` tools with realistic descriptions.
pub fn runtime_tools(count: usize) -> Vec<Tool> {
    const VERBS: [&str; 8] = [
        "get", "list", "update", "create", "archive", "sync", "export", "count",
    ];
    const NOUNS: [&str; 16] = [
        "invoice", "customer", "order", "ticket", "shipment", "product", "coupon", "review",
        "lead", "campaign", "employee", "asset", "license", "vendor", "contract", "budget",
    ];
    (0..count)
        .map(|i| {
            let verb = VERBS[i % VERBS.len()];
            let noun = NOUNS[(i / VERBS.len()) % NOUNS.len()];
            Tool::builder(format!("{verb}_{noun}_{i}"))
                .description(format!(
                    "{verb} a {noun} record (shard {i}). Returns the {noun} as JSON."
                ))
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": format!("The {noun} id")},
                        "limit": {"type": "integer", "minimum": 1, "description": "Most results"},
                        "filters": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["id"]
                }))
                .categories([if i % 2 == 0 { "crm" } else { "erp" }])
                .tags([noun])
                .safety(if i % 5 == 0 {
                    toolwright_core::SafetyLevel::Cautious
                } else {
                    toolwright_core::SafetyLevel::Safe
                })
                .handler(|_| async { Ok::<_, ToolError>("ok") })
                .build()
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

/// A registry of `count` runtime-built tools.
pub fn runtime_registry(count: usize) -> Arc<toolwright_runtime::ToolRegistry> {
    let registry = toolwright_runtime::ToolRegistry::new();
    for tool in runtime_tools(count) {
        let _ = registry.register(tool);
    }
    Arc::new(registry)
}
