//! The baseline of `serve_http.sh`: a bare rmcp streamable HTTP server with one tool,
//! `calculate` (the same function `toolwright` serves), mounted on axum as rmcp's own
//! examples do. `--nodelay` sets `TCP_NODELAY` on accepted connections.
//!
//! rmcp's default configuration serves both eras of clients, as `toolwright serve --http`
//! does: handshake-era clients (`initialize`, then a session) and 2026-07-28 clients (no
//! handshake, no session: each request goes to the stateless path, which also checks the
//! `Mcp-Method`/`Mcp-Name` headers against the body, looking the tool up with `get_tool`).
//!
//! Usage: `bare_rmcp_http ADDR [--nodelay]`; prints `listening on ADDR` when ready.

use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone)]
struct Bare {
    tool_router: ToolRouter<Bare>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct CalculateParams {
    expression: String,
}

#[tool_router]
impl Bare {
    fn new() -> Self {
        Bare {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Evaluate an arithmetic expression.")]
    fn calculate(&self, Parameters(p): Parameters<CalculateParams>) -> String {
        match toolwright_std::data::calculate(p.expression) {
            Ok(value) => value,
            Err(error) => error.to_string(),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bare {}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let nodelay = args.any(|a| a == "--nodelay");
    let service: StreamableHttpService<Bare, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Bare::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on {}", listener.local_addr()?);
    if nodelay {
        let listener = listener.tap_io(|stream| {
            let _ = stream.set_nodelay(true);
        });
        axum::serve(listener, router).await
    } else {
        axum::serve(listener, router).await
    }
}
