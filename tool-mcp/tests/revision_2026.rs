//! What a client of MCP's 2026-07-28 revision (no session: each request carries its
//! protocol version and capabilities in `_meta`) sees of the server besides tool calls:
//! `server/discover` declares what the server does and nothing else, `subscriptions/listen`
//! hears of list changes, and a call logs only at the `logLevel` the request gave.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{message, post};
use serde_json::{Value, json};
use toolwright_core::{LogLevel, Tool, ToolContext, tool};
use toolwright_mcp::{HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Executor, ToolRegistry, register_all_tools};

/// Logs twice while it runs.
#[tool]
async fn chatty(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Debug, "details");
    ctx.log(LogLevel::Warning, "careful");
    "done".to_owned()
}

/// A runtime tool named `name`.
fn plain_tool(name: &str) -> Tool {
    Tool::builder(name)
        .description("A tool that is added while a client listens")
        .handler(|_: serde_json::Map<String, Value>| async { "ok" })
        .build()
        .unwrap()
}

async fn start(options: HttpOptions) -> (HttpServer, Arc<ToolRegistry>) {
    let registry = Arc::new(register_all_tools().unwrap());
    let executor = Executor::builder(Arc::clone(&registry)).build();
    let server = McpServer::new(executor)
        .serve_http_with(([127, 0, 0, 1], 0).into(), options)
        .await
        .unwrap();
    (server, registry)
}

/// `_meta` of a 2026-07-28 request, with `extra` keys added.
fn meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "revision-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(meta), Some(extra)) = (meta.as_object_mut(), extra.as_object()) {
        meta.extend(extra.clone());
    }
    meta
}

/// A 2026-07-28 request of `method`; the response, not yet read.
async fn send(server: &HttpServer, id: u64, method: &str, mut params: Value) -> reqwest::Response {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if params.get("_meta").is_none() {
        params["_meta"] = meta(json!({}));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut request = post(&reqwest::Client::new(), &server.url(), &body)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request.send().await.unwrap()
}

/// Every JSON-RPC message of a finished response (one JSON body, or an event stream).
async fn messages(response: reqwest::Response) -> Vec<Value> {
    let body = response.text().await.unwrap();
    if let Ok(value) = serde_json::from_str::<Value>(&body) {
        return vec![value];
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

/// The next JSON-RPC message of an event stream still open, waiting at most 10 seconds.
async fn next_message(response: &mut reqwest::Response, pending: &mut String) -> Value {
    loop {
        if let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            if let Some(value) = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            {
                return value;
            }
            continue;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), response.chunk())
            .await
            .expect("no message on the stream within 10 seconds")
            .unwrap()
            .expect("the stream ended");
        pending.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
    }
}

#[tokio::test]
async fn discover_declares_what_the_server_answers_and_list_changed_only_where_it_is_sent() {
    let (server, _) = start(HttpOptions::new()).await;
    let reply = message(
        &send(&server, 1, "server/discover", json!({}))
            .await
            .text()
            .await
            .unwrap(),
    );
    let capabilities = &reply["result"]["capabilities"];
    assert_eq!(
        capabilities,
        &json!({
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"subscribe": true, "listChanged": true},
            "completions": {},
            "logging": {},
            "extensions": {
                "io.modelcontextprotocol/tasks": {},
                "io.modelcontextprotocol/skills": {},
            },
        }),
        "{reply}"
    );
    // What it declares, it answers, with nothing registered: empty lists, not errors.
    for (method, list) in [
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
        ("skills/list", "skills"),
    ] {
        let reply = message(
            &send(&server, 2, method, json!({}))
                .await
                .text()
                .await
                .unwrap(),
        );
        assert_eq!(reply["result"][list], json!([]), "{method}: {reply}");
    }

    // Stateless HTTP answers each request with one JSON body: no stream to notify on.
    let (stateless, _) = start(HttpOptions::new().stateless(true)).await;
    let reply = message(
        &send(&stateless, 1, "server/discover", json!({}))
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(
        reply["result"]["capabilities"],
        json!({
            "tools": {},
            "prompts": {},
            "resources": {},
            "completions": {},
            "logging": {},
            "extensions": {
                "io.modelcontextprotocol/tasks": {},
                "io.modelcontextprotocol/skills": {},
            },
        }),
        "{reply}"
    );
    let listen = json!({"notifications": {"toolsListChanged": true}});
    let reply = message(
        &send(&stateless, 2, "subscriptions/listen", listen)
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
}

#[tokio::test]
async fn a_listening_client_hears_that_the_tools_changed_and_nothing_it_did_not_ask_for() {
    let (server, registry) = start(HttpOptions::new()).await;
    let listen = json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}});
    let mut stream = send(&server, 41, "subscriptions/listen", listen).await;
    assert!(stream.status().is_success(), "{}", stream.status());
    let mut pending = String::new();
    let ack = next_message(&mut stream, &mut pending).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    // What it asked for, and only that (not the resources' list).
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "promptsListChanged": true}),
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 41,
        "{ack}"
    );

    registry.register(plain_tool("added_later")).unwrap();
    let change = next_message(&mut stream, &mut pending).await;
    assert_eq!(
        change["method"], "notifications/tools/list_changed",
        "{change}"
    );
    assert_eq!(
        change["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 41,
        "{change}"
    );
}

#[tokio::test]
async fn a_call_logs_only_at_the_level_its_request_gave() {
    let (server, _) = start(HttpOptions::new()).await;
    let logs = |messages: &[Value]| -> Vec<String> {
        messages
            .iter()
            .filter(|m| m["method"] == "notifications/message")
            .map(|m| m["params"]["level"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let call = json!({"name": "chatty", "arguments": {}});
    let quiet = messages(send(&server, 1, "tools/call", call.clone()).await).await;
    assert_eq!(
        quiet.last().unwrap()["result"]["content"][0]["text"],
        "done"
    );
    assert!(
        logs(&quiet).is_empty(),
        "no logLevel, yet logged: {quiet:?}"
    );

    let mut asked = call;
    asked["_meta"] = meta(json!({"io.modelcontextprotocol/logLevel": "warning"}));
    let heard = messages(send(&server, 2, "tools/call", asked).await).await;
    assert_eq!(logs(&heard), ["warning"], "{heard:?}");
}

#[tokio::test]
async fn a_listening_client_hears_the_resources_it_named_updated_and_the_prompts_changed() {
    let (server, registry) = start(HttpOptions::new()).await;
    let note = toolwright_core::Resource::builder("note", "notes://{id}")
        .handler(|request: toolwright_core::ResourceRequest, _| async move {
            Ok::<_, toolwright_core::ToolError>(format!("note {}", request.variable("id")?))
        })
        .build()
        .unwrap();
    registry.register_resource(note).unwrap();
    let listen = json!({"notifications": {
        "promptsListChanged": true,
        "resourceSubscriptions": ["notes://7"],
    }});
    let mut stream = send(&server, 42, "subscriptions/listen", listen).await;
    assert!(stream.status().is_success(), "{}", stream.status());
    let mut pending = String::new();
    let ack = next_message(&mut stream, &mut pending).await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true, "resourceSubscriptions": ["notes://7"]}),
        "{ack}"
    );

    // Another note's update is not this client's; its own is.
    assert!(registry.notify_resource_updated("notes://8"));
    assert!(registry.notify_resource_updated("notes://7"));
    let updated = next_message(&mut stream, &mut pending).await;
    assert_eq!(
        updated["method"], "notifications/resources/updated",
        "{updated}"
    );
    assert_eq!(updated["params"]["uri"], "notes://7", "{updated}");

    // A tool added: not asked for, not sent. A prompt added: sent.
    registry
        .register(plain_tool("added_while_listening"))
        .unwrap();
    let prompt = toolwright_core::Prompt::builder("added_later")
        .handler(|_, _| async { Ok::<_, toolwright_core::ToolError>("later") })
        .build()
        .unwrap();
    registry.register_prompt(prompt).unwrap();
    let changed = next_message(&mut stream, &mut pending).await;
    assert_eq!(
        changed["method"], "notifications/prompts/list_changed",
        "{changed}"
    );
}
