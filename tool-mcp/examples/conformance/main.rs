//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) tests:
//! its test tools written with `#[tool]`, its resources and prompts with `#[resource]` and
//! `#[prompt]` (completions included), all served by [`McpServer`]. Run the suite against it
//! with
//! `tool-mcp/tests/conformance/run.sh -- cargo run -p toolwright-mcp --features http --example conformance`.
//!
//! ```sh
//! cargo run -p toolwright-mcp --features http --example conformance -- 127.0.0.1:0   # prints its URL
//! ```
//!
//! [`Conformance`] wraps the [`McpServer`]: everything goes to it but one diagnostic of the
//! suite, answered here: a call that needs a power the client did not declare. The HTTP side is rmcp's
//! `StreamableHttpService` (toolwright-mcp's `serve_http_with` serves only an `McpServer`), with
//! the same Host and Origin rules as toolwright-mcp's: loopback names only, no foreign `Origin`.

use std::net::SocketAddr;
use std::sync::Arc;

#[allow(deprecated)] // logging/setLevel: deprecated by SEP-2577, still in the 2025-11-25 suite
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetTaskParams, GetTaskResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
    SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool as McpTool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolwright_core::client::{Answer, Ask, Root, SamplingMessage, SamplingOptions};
use toolwright_core::{
    Audio, ClientError, Elicitation, EmbeddedResource, Image, LogLevel, SafetyLevel, Tool,
    ToolContext, ToolError, tool,
};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry, register_all_tools};

mod catalog;
mod tools;

use catalog::*;
use tools::*;

/// The conformance server: the [`McpServer`], and the diagnostic answered here.
#[derive(Clone)]
struct Conformance {
    tools: McpServer,
}

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        self.tools.get_info()
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
        // A call that needs a power the client did not declare is refused before it runs
        // (SEP-2575: -32021, HTTP 400); rmcp words the error.
        if request.name == "test_missing_capability"
            && context
                .client_capabilities()
                .is_none_or(|capabilities| capabilities.sampling.is_none())
        {
            return Err(McpError::missing_required_client_capability(parse(
                json!({"sampling": {}}),
            )?));
        }
        self.tools.call_tool(request, context).await
    }

    // `subscriptions/listen` (a 2026-07-28 client): the McpServer's list changes and
    // resource updates.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.tools.accepted_subscription_filter(requested)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        self.tools.listen(subscription).await
    }

    // Tasks (SEP-2663) are the McpServer's, as its `get_info` declares.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        self.tools.get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.cancel_task(request, context).await
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
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.tools.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.tools.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.tools.read_resource(request, context).await
    }

    #[allow(deprecated)] // legacy-only in rmcp; the suite's 2025 scenarios subscribe this way
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.subscribe(request, context).await
    }

    #[allow(deprecated)] // as `subscribe`
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.unsubscribe(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.tools.list_prompts(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.tools.get_prompt(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.tools.complete(request, context).await
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
    let registry = Arc::new(registry);
    let executor = Executor::builder(Arc::clone(&registry))
        .max_safety(SafetyLevel::Dangerous)
        .state(ManagedRegistry(registry))
        .build();
    let handler = Conformance {
        tools: McpServer::new(executor).name("tool-mcp-conformance", env!("CARGO_PKG_VERSION")),
    };

    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let port = local.port();
    // toolwright-mcp's rules: Host a loopback name; no Origin but the server's own.
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
