//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) tests:
//! its test tools written with `#[tool]` and served by [`McpServer`], and the resources,
//! prompts and completions its scenarios read, answered here through rmcp's `ServerHandler`
//! (they are not a framework feature). Run the suite against it with
//! `tool-mcp/tests/conformance/run.sh -- cargo run -p tool-mcp --example conformance`.
//!
//! ```sh
//! cargo run -p tool-mcp --example conformance -- 127.0.0.1:0   # prints its URL
//! ```
//!
//! [`Conformance`] wraps the [`McpServer`]: tools, `get_info` and the notifications go to it;
//! resources, prompts and completion are answered here. The HTTP side is rmcp's
//! `StreamableHttpService` (tool-mcp's `serve_http_with` serves only an `McpServer`), with
//! the same Host and Origin rules as tool-mcp's: loopback names only, no foreign `Origin`.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

#[allow(deprecated)] // logging/setLevel: deprecated by SEP-2577, still in the 2025-11-25 suite
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerConfig,
    SetLevelRequestParams, SubscribeRequestParams, Tool as McpTool, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tool_mcp::McpServer;
use tool_runtime::{Executor, SafetyLevel, Tool, ToolContext, ToolError, register_all_tools, tool};

/// A 1x1 red PNG, base64.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

// ---- the test tools (scenarios tools-call-*)

/// Returns a simple text response (conformance scenario `tools-call-simple-text`).
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, as a tool error (conformance scenario `tools-call-error`).
#[tool]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100 (conformance scenario `tools-call-with-progress`).
#[tool]
async fn test_tool_with_progress(ctx: &ToolContext) -> String {
    for step in [0.0, 50.0, 100.0] {
        ctx.report_progress(step, Some(100.0), format!("{step}/100"));
    }
    "Progress test completed".to_owned()
}

/// The JSON Schema 2020-12 tool (scenario `json-schema-2020-12`): its input schema has
/// `$schema`, `$defs` and `additionalProperties: false`, which the listing must keep. A
/// runtime tool, to give the exact schema.
fn json_schema_2020_12_tool() -> Tool {
    Tool::builder("json_schema_2020_12_tool")
        .description("Tool with JSON Schema 2020-12 features")
        .input_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"}
            },
            "additionalProperties": false
        }))
        .handler(|arguments: serde_json::Map<String, Value>| async move {
            format!(
                "JSON Schema 2020-12 tool called with {}",
                Value::Object(arguments)
            )
        })
        .build()
        .expect("the JSON Schema 2020-12 tool is well formed")
}

// ---- resources, prompts, completion (answered by the handler below)

fn parse<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|error| McpError::internal_error(error.to_string(), None))
}

fn resources() -> Value {
    json!({"resources": [
        {"uri": "test://static-text", "name": "static-text", "description": "A static text resource",
         "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "static-binary",
         "description": "A static binary resource (a PNG image)", "mimeType": "image/png"},
        {"uri": "test://watched-resource", "name": "watched-resource",
         "description": "A resource clients may subscribe to", "mimeType": "text/plain"}
    ]})
}

fn resource_templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "test://template/{id}/data", "name": "template-data",
         "description": "Data for an id, from a template", "mimeType": "application/json"}
    ]})
}

fn read(uri: &str) -> Option<Value> {
    let content = match uri {
        "test://static-text" => json!({"uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource."}),
        "test://static-binary" => {
            json!({"uri": uri, "mimeType": "image/png", "blob": RED_PIXEL_PNG})
        }
        "test://watched-resource" => json!({"uri": uri, "mimeType": "text/plain",
            "text": "The watched resource's content."}),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            json!({"uri": uri, "mimeType": "application/json", "text": text.to_string()})
        }
    };
    Some(json!({"contents": [content]}))
}

fn prompts() -> Value {
    json!({"prompts": [
        {"name": "test_simple_prompt", "description": "A simple prompt without arguments"},
        {"name": "test_prompt_with_arguments", "description": "A prompt with two arguments",
         "arguments": [
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": true}
         ]},
        {"name": "test_prompt_with_embedded_resource",
         "description": "A prompt that embeds a resource",
         "arguments": [{"name": "resourceUri", "description": "URI of the resource to embed",
                        "required": true}]},
        {"name": "test_prompt_with_image", "description": "A prompt with an image"}
    ]})
}

fn prompt(name: &str, arguments: &serde_json::Map<String, Value>) -> Result<Value, McpError> {
    let argument = |key: &str| -> Result<String, McpError> {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!("prompt `{name}` needs the argument `{key}`"),
                    None,
                )
            })
    };
    let text = |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
    let messages = match name {
        "test_simple_prompt" => vec![text("This is a simple prompt for testing.".to_owned())],
        "test_prompt_with_arguments" => {
            let (arg1, arg2) = (argument("arg1")?, argument("arg2")?);
            vec![text(format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            ))]
        }
        "test_prompt_with_embedded_resource" => vec![
            json!({"role": "user", "content": {"type": "resource", "resource": {
                "uri": argument("resourceUri")?, "mimeType": "text/plain",
                "text": "Embedded resource content for testing."}}}),
            text("Please process the embedded resource above.".to_owned()),
        ],
        "test_prompt_with_image" => vec![
            json!({"role": "user", "content": {"type": "image", "data": RED_PIXEL_PNG,
                                               "mimeType": "image/png"}}),
            text("Please analyze the image above.".to_owned()),
        ],
        _ => {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{name}`"),
                Some(json!({"prompt": name})),
            ));
        }
    };
    Ok(json!({"description": format!("The conformance prompt {name}"), "messages": messages}))
}

/// Completion values for the prompt argument `arg1`/`arg2` (anything else: none).
fn complete(request: &CompleteRequestParams) -> Value {
    let prefix = request.argument.value.as_str();
    let values: Vec<&str> = ["paris", "park", "party", "test", "testing"]
        .into_iter()
        .filter(|value| value.starts_with(prefix))
        .collect();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

// ---- the handler: tools to the McpServer, the rest here

/// The conformance server: an [`McpServer`] for the tools, resources and prompts answered
/// here.
#[derive(Clone)]
struct Conformance {
    tools: McpServer,
    /// The URIs clients subscribed to (the suite checks only that subscribe and unsubscribe
    /// answer; nothing changes, so no `notifications/resources/updated` is sent).
    subscriptions: Arc<Mutex<HashSet<String>>>,
}

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.tools.get_info();
        info.capabilities.resources = Some(
            serde_json::from_value(json!({"subscribe": true, "listChanged": false}))
                .expect("the resources capability"),
        );
        info.capabilities.prompts = Some(
            serde_json::from_value(json!({"listChanged": false})).expect("the prompts capability"),
        );
        info.capabilities.completions = Some(serde_json::Map::new());
        info
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.tools.on_initialized(context).await;
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.tools.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.tools.get_tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.tools.call_tool(request, context).await
    }

    // `logging/setLevel` is the McpServer's (method not found until it has one).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.set_level(request, context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        parse(resources())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        parse(resource_templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let Some(result) = read(&request.uri) else {
            return Err(McpError::resource_not_found(
                format!("no resource `{}`", request.uri),
                Some(json!({"uri": request.uri})),
            ));
        };
        Ok(parse::<ReadResourceResult>(result)?.into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.lock().unwrap().insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.lock().unwrap().remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        parse(prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let arguments = request.arguments.clone().unwrap_or_default();
        Ok(parse::<GetPromptResult>(prompt(&request.name, &arguments)?)?.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        parse(complete(&request))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned())
        .parse()?;
    if !addr.ip().is_loopback() {
        return Err("the conformance server serves a loopback address only".into());
    }

    let registry = register_all_tools()?;
    registry.register(json_schema_2020_12_tool())?;
    let executor = Executor::builder(Arc::new(registry))
        .max_safety(SafetyLevel::Dangerous)
        .build();
    let handler = Conformance {
        tools: McpServer::new(executor).name("tool-mcp-conformance", env!("CARGO_PKG_VERSION")),
        subscriptions: Arc::default(),
    };

    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let port = local.port();
    // tool-mcp's rules: Host a loopback name; no Origin but the server's own.
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
        .with_allowed_origins([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .enforce_origin_validation();
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    println!("conformance: MCP server listening on http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
