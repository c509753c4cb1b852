//! `notifications/cancelled` over a stdio-style transport (JSON lines over a pipe, in
//! process) stops a sync tool's work and gives its thread back. A binary of its own, so its
//! tool does not change the other tests' tool lists.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use toolwright_core::{ToolContext, tool};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, register_all_tools};

/// Spin on a thread of its own until cancelled (a sync tool that checks its context).
#[tool]
fn spin_until_cancelled(ctx: &ToolContext) -> String {
    while !ctx.is_cancelled() {
        std::hint::spin_loop();
    }
    "stopped".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_stops_a_sync_tool_and_frees_its_thread() {
    let executor = Executor::builder(Arc::new(register_all_tools().unwrap())).build();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(executor.clone());
    let serving = tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        let running = server.serve((read, write)).await.unwrap();
        running.waiting().await.unwrap();
    });
    let (read, write) = tokio::io::split(client_io);
    let client = ().serve((read, write)).await.unwrap();
    {
        let call = client.call_tool(CallToolRequestParams::new("spin_until_cancelled"));
        tokio::pin!(call);
        // Wait for the event (the tool is running on its thread), then drop the call: the
        // client sends notifications/cancelled.
        while executor.metrics().sync_threads.busy == 0 {
            tokio::select! {
                _ = &mut call => panic!("the call ended on its own"),
                () = tokio::task::yield_now() => {}
            }
        }
    }
    // The tool sees its cancellation and returns; the executor counts the failed call.
    while executor.metrics().sync_threads.busy > 0
        || executor
            .metrics()
            .tools
            .get("spin_until_cancelled")
            .is_none_or(|m| m.failures == 0)
    {
        tokio::task::yield_now().await;
    }
    let threads = executor.metrics().sync_threads;
    assert_eq!((threads.busy, threads.abandoned), (0, 0));
    assert_eq!(executor.metrics().tools["spin_until_cancelled"].failures, 1);
    client.cancel().await.unwrap();
    serving.await.unwrap();
}
