//! The stdio transport's JSON-RPC hygiene, over an in-memory pipe: malformed lines get their
//! error reply, and a request reusing an in-flight id is refused while the first is answered.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::Semaphore;
use toolwright_core::Tool;
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry};

struct Client {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
}

impl Client {
    async fn send(&mut self, line: &str) {
        self.input.write_all(line.as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
    }

    async fn send_json(&mut self, value: Value) {
        self.send(&value.to_string()).await;
    }

    async fn next(&mut self) -> Value {
        // A deadline only so that a regression fails instead of hanging (rmcp without the
        // guard never answers a malformed line); no assertion depends on how long it takes.
        let line =
            tokio::time::timeout(std::time::Duration::from_secs(120), self.output.next_line())
                .await
                .expect("no reply from the server")
                .unwrap()
                .expect("the server closed");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next message that is a response (skipping notifications).
    async fn response(&mut self) -> Value {
        loop {
            let message = self.next().await;
            if message.get("method").is_none() {
                return message;
            }
        }
    }
}

/// A server whose one tool, `wait_for_gate`, returns when the test adds a permit.
fn start() -> (Client, Arc<Semaphore>, tokio::task::JoinHandle<()>) {
    let gate = Arc::new(Semaphore::new(0));
    let permits = Arc::clone(&gate);
    let tool = Tool::builder("wait_for_gate")
        .description("Wait until the test opens the gate.")
        .handler(move |_| {
            let gate = Arc::clone(&permits);
            async move {
                let _permit = gate.acquire().await;
                "through"
            }
        })
        .build()
        .unwrap();
    let registry = ToolRegistry::new();
    registry.register(tool).unwrap();
    let server = McpServer::new(Executor::builder(Arc::new(registry)).build());
    let (input, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, output) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(async move {
        let _ = server.serve_io(server_in, server_out).await;
    });
    let client = Client {
        input,
        output: BufReader::new(output).lines(),
    };
    (client, gate, serving)
}

async fn initialize(client: &mut Client) {
    client
        .send_json(json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}
        }))
        .await;
    let reply = client.response().await;
    assert_eq!(reply["id"], 0, "{reply}");
    assert!(reply.get("result").is_some(), "{reply}");
    client
        .send_json(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

#[tokio::test]
async fn malformed_lines_get_json_rpc_errors() {
    let (mut client, _gate, _serving) = start();
    initialize(&mut client).await;

    client.send("{not json").await;
    let reply = client.response().await;
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], Value::Null);

    client
        .send(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
        .await;
    assert_eq!(client.response().await["error"]["code"], -32600);

    client
        .send(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)
        .await;
    assert_eq!(client.response().await["error"]["code"], -32600);

    client
        .send_json(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                          "params": {"name": "wait_for_gate", "arguments": "not an object"}}))
        .await;
    let reply = client.response().await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["id"], 9);

    // The session is still fine.
    client
        .send_json(json!({"jsonrpc": "2.0", "id": 10, "method": "ping"}))
        .await;
    let reply = client.response().await;
    assert_eq!(reply["id"], 10, "{reply}");
    assert!(reply.get("result").is_some(), "{reply}");
}

#[tokio::test]
async fn a_reused_in_flight_id_is_refused_and_the_first_call_still_answers() {
    let (mut client, gate, _serving) = start();
    initialize(&mut client).await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                      "params": {"name": "wait_for_gate", "arguments": {}}});
    client.send_json(call.clone()).await;
    // The same id again while the first call waits at the gate.
    client.send_json(call.clone()).await;
    let refused = client.response().await;
    assert_eq!(refused["id"], 5, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still being answered"),
        "{refused}"
    );
    gate.add_permits(1);
    let answered = client.response().await;
    assert_eq!(answered["id"], 5, "{answered}");
    assert_eq!(
        answered["result"]["content"][0]["text"], "through",
        "{answered}"
    );
    // Once answered, the id may be used again.
    client.send_json(call).await;
    gate.add_permits(1);
    let again = client.response().await;
    assert_eq!(again["result"]["content"][0]["text"], "through", "{again}");
}

/// The `serverInfo` a server answers `initialize` with.
async fn server_info(server: McpServer) -> Value {
    let (input, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, output) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(async move {
        let _ = server.serve_io(server_in, server_out).await;
    });
    let mut client = Client {
        input,
        output: BufReader::new(output).lines(),
    };
    client
        .send_json(json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "1"}}
        }))
        .await;
    let reply = client.response().await;
    drop(client);
    let _ = serving.await;
    reply["result"]["serverInfo"].clone()
}

#[tokio::test]
async fn a_server_is_named_after_the_program_unless_named() {
    let executor = Executor::builder(Arc::new(ToolRegistry::new())).build();

    // This test's program is `stdio-<hash>`: the server announces that, with toolwright-mcp's
    // version (the program's own is not known at run time).
    let info = server_info(McpServer::new(executor.clone())).await;
    let name = info["name"].as_str().unwrap();
    assert!(name.starts_with("stdio-"), "{info}");
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"), "{info}");

    let info = server_info(McpServer::new(executor).name("my-tools", "2.3.4")).await;
    assert_eq!(info["name"], "my-tools", "{info}");
    assert_eq!(info["version"], "2.3.4", "{info}");
}
