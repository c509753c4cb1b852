//! What the upstream tests share: the raw upstream (a small rmcp `ServerHandler` listing
//! tools our registry could not hold), connecting to it in process, and the tools it lists.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, Resource,
    ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolwright_core::ToolCall;
use toolwright_gateway::upstream::Upstream;
use toolwright_runtime::{ApprovalDecision, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

/// Awaits `future`, failing the test if it is not done within the deadline.
pub async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

/// A tool as an upstream lists it, unchecked.
pub fn raw_tool(name: &str, description: &str, schema: Value) -> McpTool {
    McpTool::new(name.to_owned(), description.to_owned(), object(schema))
}

fn annotated(mut tool: McpTool, read_only: Option<bool>, destructive: Option<bool>) -> McpTool {
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = read_only;
    annotations.destructive_hint = destructive;
    tool.annotations = Some(annotations);
    tool
}

/// A schema with one required `city` string.
pub fn city_schema() -> Value {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
}

/// A schema with no properties.
pub fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The bytes of the image the upstream returns.
pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot really";

/// How the raw upstream lists its tools.
#[derive(Clone, Copy)]
pub enum Paging {
    /// `page_size` a page, the index as the cursor.
    Pages(usize),
    /// A new cursor on every page, for ever.
    Endless,
    /// The same cursor again and again.
    SameCursor,
}

/// The raw upstream: a list of tools that can change, and calls by name.
#[derive(Clone)]
pub struct Raw {
    /// What it lists now (a test changes it, then says the list changed).
    pub tools: Arc<Mutex<Vec<McpTool>>>,
    paging: Paging,
    events: mpsc::UnboundedSender<&'static str>,
}

impl Raw {
    pub fn new(
        tools: Vec<McpTool>,
        paging: Paging,
    ) -> (Raw, mpsc::UnboundedReceiver<&'static str>) {
        let (events, received) = mpsc::unbounded_channel();
        (
            Raw {
                tools: Arc::new(Mutex::new(tools)),
                paging,
                events,
            },
            received,
        )
    }
}

impl ServerHandler for Raw {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        );
        info.server_info.name = "raw-upstream".into();
        info
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tools.lock().unwrap().clone();
        let cursor = request.and_then(|r| r.cursor);
        Ok(match self.paging {
            Paging::Pages(size) => {
                let start: usize = cursor.map_or(0, |c| c.parse().unwrap());
                let end = (start + size).min(tools.len());
                let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
                result.next_cursor = (end < tools.len()).then(|| end.to_string());
                result
            }
            Paging::Endless => {
                let next: u64 = cursor.map_or(0, |c| c.parse().unwrap()) + 1;
                let mut result = ListToolsResult::with_all_items(vec![raw_tool(
                    &format!("tool{next}"),
                    "One more.",
                    empty_schema(),
                )]);
                result.next_cursor = Some(next.to_string());
                result
            }
            Paging::SameCursor => {
                let mut result = ListToolsResult::with_all_items(tools);
                result.next_cursor = Some("again".into());
                result
            }
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let result = match request.name.as_ref() {
            "get-weather" => CallToolResult::success(vec![ContentBlock::text(format!(
                "sunny in {}",
                arguments["city"].as_str().unwrap_or("?")
            ))]),
            "structured" => {
                let mut result = CallToolResult::success(vec![ContentBlock::text("21 degrees")]);
                result.structured_content = Some(json!({"temperature": 21}));
                result
            }
            "image" => CallToolResult::success(vec![
                ContentBlock::image(
                    base64::engine::general_purpose::STANDARD.encode(PNG),
                    "image/png",
                ),
                ContentBlock::resource_link(Resource::new("file:///a.txt", "a.txt")),
                ContentBlock::embedded_text("file:///b.txt", "bee"),
            ]),
            "slow" => {
                let _ = self.events.send("slow started");
                context.ct.cancelled().await;
                let _ = self.events.send("slow cancelled");
                CallToolResult::error(vec![ContentBlock::text("cancelled")])
            }
            "progress" => {
                if let Some(token) = context.meta.get_progress_token() {
                    let _ = context
                        .peer
                        .notify_progress(
                            ProgressNotificationParam::new(token, 1.0)
                                .with_total(2.0)
                                .with_message("half way"),
                        )
                        .await;
                }
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
            "failing" => CallToolResult::error(vec![ContentBlock::text("upstream says no")]),
            _ => CallToolResult::success(vec![ContentBlock::text("ok")]),
        };
        Ok(result.into())
    }
}

/// Serves `handler` in process and connects an `Upstream` to it.
pub async fn connect<S: ServerHandler>(handler: S) -> Upstream {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = handler.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    within(
        "the handshake",
        Upstream::connect_transport("in-process", tokio::io::split(client_io)),
    )
    .await
    .unwrap()
}

/// The raw upstream's usual list: names our registry could not hold, annotations, a
/// non-object schema.
pub fn standard_tools() -> Vec<McpTool> {
    vec![
        annotated(
            raw_tool(
                "get-weather",
                "The weather in a city. \u{202e}txet neddih",
                city_schema(),
            ),
            Some(true),
            None,
        ),
        annotated(
            raw_tool("searchRepositories", "Search.", empty_schema()),
            None,
            Some(false),
        ),
        raw_tool(&"y".repeat(500), "A long name.", empty_schema()),
        raw_tool("evil\u{1b}[31m\nname", "Controls.", empty_schema()),
        raw_tool("not-object", "A string schema.", json!({"type": "string"})),
        {
            let mut tool = raw_tool("structured", "Structured.", empty_schema());
            tool.output_schema = Some(Arc::new(object(json!({
                "type": "object",
                "properties": {"temperature": {"type": "integer"}},
                "required": ["temperature"]
            }))));
            tool
        },
        raw_tool("image", "An image.", empty_schema()),
        raw_tool("slow", "Waits for cancellation.", empty_schema()),
        raw_tool("progress", "Reports progress.", empty_schema()),
        raw_tool("failing", "Fails.", empty_schema()),
    ]
}

/// A call to a mounted tool.
pub fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall::new("1", name, arguments)
}

/// An executor that approves everything (the tests of content, not of policy).
pub fn approving(registry: &Arc<ToolRegistry>) -> Executor {
    Executor::builder(registry.clone())
        .approval(|_| async { ApprovalDecision::Approved })
        .build()
}
