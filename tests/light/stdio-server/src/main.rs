//! An MCP server over stdio with one tool, built with the facade's `mcp` feature and nothing
//! else: what the fewest crates serve. `.ci/run` fails when its normal dependencies reach 100
//! crates (README, "Cargo features").

use std::sync::Arc;

use toolwright::{Executor, register_all_tools, tool};

/// Add two numbers.
#[tool(safety = "safe")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let executor = Executor::builder(Arc::new(register_all_tools()?)).build();
    toolwright::mcp::McpServer::new(executor)
        .name(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await?;
    Ok(())
}
