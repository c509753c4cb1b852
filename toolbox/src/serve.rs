//! `toolbox serve`: the tools over MCP.

use std::sync::Arc;
use std::time::Duration;

use tool_mcp::McpServer;
use tool_runtime::{Executor, SafetyLevel};

use crate::cli::ServeArgs;
use crate::ending::{Outcome, UsageError, registry};
use crate::workspace::workspace;

pub(crate) async fn serve(args: ServeArgs) -> Result<Outcome, UsageError> {
    let registry = registry()?;
    let workspace = workspace(&args.workspace)?;
    let root = workspace.root().display().to_string();
    let executor = Executor::builder(Arc::new(registry))
        .max_safety(args.max_safety.unwrap_or(SafetyLevel::Dangerous))
        .state(workspace)
        .timeout(Duration::from_secs(args.timeout))
        .max_concurrent_calls(usize::try_from(args.max_concurrent_calls).unwrap_or(usize::MAX))
        .max_sync_threads(usize::try_from(args.max_sync_threads).unwrap_or(usize::MAX))
        .build();
    let server = McpServer::new(executor)
        .name("toolbox", env!("CARGO_PKG_VERSION"))
        .instructions(format!(
            "Tools for working in the project directory {root}: files (read, search, edit), \
             commands, maths, time. Paths are relative to that directory."
        ))
        .allow_dangerous(args.allow_dangerous);
    match args.http {
        None => {
            tracing::info!(%root, "serving MCP over stdio");
            server
                .serve_stdio()
                .await
                .map_err(|e| UsageError(e.to_string()))?;
        }
        Some(addr) => {
            if !addr.ip().is_loopback() {
                tracing::warn!(%addr, "serving on a non-loopback address; MCP clients on other hosts are refused by the Host check");
            }
            let http = server
                .serve_http(addr)
                .await
                .map_err(|e| UsageError(format!("cannot serve on {addr}: {e}")))?;
            eprintln!(
                "toolbox: MCP server listening on {} (Ctrl-C to stop)",
                http.url()
            );
            let _ = tokio::signal::ctrl_c().await;
            http.shutdown();
            http.wait().await.map_err(|e| UsageError(e.to_string()))?;
        }
    }
    Ok(Outcome::Success)
}
