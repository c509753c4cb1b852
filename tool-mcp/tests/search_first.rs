//! A search-first tool list over authenticated HTTP on 127.0.0.1, with rmcp's client: a
//! server with hundreds of tools lists a core and `search_tools`, `describe_tool`,
//! `call_tool`; the instructions say the list is partial; a tool found by search is
//! described and called (through `call_tool` and directly); a dangerous one asks its
//! approval, naming itself; a low-ceiling caller never finds, describes or runs a tool above
//! its ceiling, whatever name it forges.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolwright_core::{SafetyLevel, Tool};
use toolwright_formats::discovery::DeferPlan;
use toolwright_mcp::{AuthConfig, HttpOptions, HttpServer, McpServer};
use toolwright_runtime::{Discovery, Executor, ToolRegistry};

const SAFE_TOKEN: &str = "safe-token-0123456789abcdef";
const APPROVER_TOKEN: &str = "approver-token-0123456789abcdef";

/// How many generated tools the server has beside the named ones.
const FILLER: usize = 400;

fn tool(name: &str, description: &str, safety: SafetyLevel, runs: Arc<AtomicUsize>) -> Tool {
    let done = format!("{name} done");
    Tool::builder(name)
        .description(description)
        .safety(safety)
        .categories([if name == "read_note" { "notes" } else { "misc" }])
        .input_schema(json!({"type": "object", "properties": {"to": {"type": "string"}}}))
        .handler(move |_| {
            runs.fetch_add(1, Ordering::SeqCst);
            let done = done.clone();
            async move { done }
        })
        .build()
        .unwrap()
}

struct Fixture {
    http: HttpServer,
    wipes: Arc<AtomicUsize>,
    invoices: Arc<AtomicUsize>,
}

async fn start() -> Fixture {
    let registry = Arc::new(ToolRegistry::new());
    let wipes = Arc::new(AtomicUsize::new(0));
    let invoices = Arc::new(AtomicUsize::new(0));
    let unused = Arc::new(AtomicUsize::new(0));
    for i in 0..FILLER {
        let description = format!("Report the status of warehouse shelf number {i}.");
        registry
            .register(tool(
                &format!("shelf_{i}_status"),
                &description,
                SafetyLevel::Safe,
                Arc::clone(&unused),
            ))
            .unwrap();
    }
    let named = [
        (
            "read_note",
            "Read a note by its title.",
            SafetyLevel::Safe,
            &unused,
        ),
        (
            "send_invoice",
            "Send an invoice to a customer by email.",
            SafetyLevel::Safe,
            &invoices,
        ),
        (
            "wipe_database",
            "Delete every row of the production database.",
            SafetyLevel::Dangerous,
            &wipes,
        ),
    ];
    for (name, description, safety, runs) in named {
        registry
            .register(tool(name, description, safety, Arc::clone(runs)))
            .unwrap();
    }
    let executor = Executor::builder(registry)
        .discovery(Discovery::search_first(
            DeferPlan::new().core_categories(["notes"]),
        ))
        .build();
    let auth = AuthConfig::new()
        .token(SAFE_TOKEN, ["tools:safe"])
        .unwrap()
        .token(APPROVER_TOKEN, ["tools:dangerous", "tools:approve"])
        .unwrap();
    let http = McpServer::new(executor)
        .instructions("Warehouse tools.")
        .serve_http_with(([127, 0, 0, 1], 0).into(), HttpOptions::new().auth(auth))
        .await
        .unwrap();
    Fixture {
        http,
        wipes,
        invoices,
    }
}

/// A client that supports elicitation and approves, recording what it was asked.
#[derive(Clone, Default)]
struct Client {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder().enable_elicitation().build();
        ClientConfig::new(
            capabilities,
            Implementation::new("search-first-test", "0.0.1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }
}

async fn connect(
    http: &HttpServer,
    token: &str,
    client: Client,
) -> RunningService<RoleClient, Client> {
    let config = StreamableHttpClientTransportConfig::with_uri(http.url()).auth_header(token);
    client
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

/// A call's outcome: its text and whether it was an error (a protocol error counts as one).
async fn call(
    client: &RunningService<RoleClient, Client>,
    name: &str,
    arguments: Value,
) -> (bool, String) {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let request = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    match client.call_tool(request).await {
        Ok(CallToolResult {
            content, is_error, ..
        }) => {
            let text = content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                .collect::<Vec<_>>()
                .join("\n");
            (is_error == Some(true), text)
        }
        Err(error) => (true, error.to_string()),
    }
}

fn found_names(search_result: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(search_result).unwrap();
    value["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_partial_list_says_so_and_finds_describes_and_calls_the_rest() {
    let fixture = start().await;
    let client = Client::default();
    let asked = Arc::clone(&client.asked);
    let session = connect(&fixture.http, APPROVER_TOKEN, client).await;

    // The instructions say the list is partial, before the operator's own words.
    let info = session.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains("The tool list is partial"),
        "{instructions}"
    );
    assert!(instructions.contains("search_tools"), "{instructions}");
    assert!(instructions.ends_with("Warehouse tools."), "{instructions}");

    // Hundreds of tools, four listed: the core, then the meta-tools.
    let listed: Vec<String> = session
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(
        listed,
        ["read_note", "search_tools", "describe_tool", "call_tool"]
    );
    let search = session.list_all_tools().await.unwrap();
    let search = search
        .iter()
        .find(|tool| tool.name == "search_tools")
        .unwrap();
    assert!(
        search
            .description
            .as_deref()
            .unwrap_or("")
            .contains("partial")
    );

    // Found, described, called through call_tool and directly: each runs it once.
    let (error, found) = call(
        &session,
        "search_tools",
        json!({"query": "email an invoice to a customer"}),
    )
    .await;
    assert!(!error, "{found}");
    assert_eq!(found_names(&found)[0], "send_invoice", "{found}");
    let (error, described) = call(&session, "describe_tool", json!({"name": "send_invoice"})).await;
    assert!(!error, "{described}");
    let described: Value = serde_json::from_str(&described).unwrap();
    assert_eq!(
        described["input_schema"]["properties"]["to"]["type"],
        "string"
    );
    let (error, text) = call(
        &session,
        "call_tool",
        json!({"name": "send_invoice", "arguments": {"to": "ada"}}),
    )
    .await;
    assert_eq!((error, text.as_str()), (false, "send_invoice done"));
    let (error, text) = call(&session, "send_invoice", json!({"to": "ada"})).await;
    assert_eq!((error, text.as_str()), (false, "send_invoice done"));
    assert_eq!(fixture.invoices.load(Ordering::SeqCst), 2);

    // A dangerous tool found by search still asks, and the question names it.
    let (_, found) = call(
        &session,
        "search_tools",
        json!({"query": "delete production database rows"}),
    )
    .await;
    assert!(
        found_names(&found).contains(&"wipe_database".to_owned()),
        "{found}"
    );
    let (error, text) = call(&session, "call_tool", json!({"name": "wipe_database"})).await;
    assert!(!error, "{text}");
    let questions = asked.lock().unwrap().clone();
    assert_eq!(questions.len(), 1, "{questions:?}");
    assert!(questions[0].contains("wipe_database"), "{questions:?}");
    assert!(!questions[0].contains("call_tool"), "{questions:?}");
    assert_eq!(fixture.wipes.load(Ordering::SeqCst), 1);

    session.cancel().await.unwrap();
    fixture.http.shutdown();
}

#[tokio::test]
async fn a_low_ceiling_caller_never_finds_describes_or_runs_a_tool_above_it() {
    let fixture = start().await;
    let session = connect(&fixture.http, SAFE_TOKEN, Client::default()).await;

    // Search: by its own words, its name, and many results.
    for query in [
        "delete every row of the production database",
        "wipe_database",
        "wipe database",
        "database",
    ] {
        let (error, found) = call(
            &session,
            "search_tools",
            json!({"query": query, "limit": 20}),
        )
        .await;
        assert!(!error, "{found}");
        assert!(!found.contains("wipe_database"), "{query}: {found}");
    }
    let (error, many) = call(
        &session,
        "search_tools",
        json!({"query": "warehouse shelf status", "limit": 100000}),
    )
    .await;
    assert!(!error, "{many}");
    assert_eq!(found_names(&many).len(), 20, "the limit is capped");

    // Every path, with the real name and forged ones: a case change, a Cyrillic `а`,
    // trailing space, a NUL, a path, a long name, and a nested call_tool.
    let long = "wipe_database".repeat(10_000);
    let forged = [
        "wipe_database",
        "WIPE_DATABASE",
        "wipe_d\u{0430}tabase",
        "wipe_database ",
        "wipe_database\u{0}",
        "../wipe_database",
        long.as_str(),
    ];
    for name in forged {
        let (error, text) = call(&session, "describe_tool", json!({"name": name})).await;
        assert!(
            error && !text.contains("Delete every row"),
            "describe {name:.40}: {text}"
        );
        let (error, text) = call(&session, "call_tool", json!({"name": name})).await;
        assert!(error, "call_tool {name:.40}: {text}");
        assert!(
            text.len() < 2_000,
            "the refusal is short: {} bytes",
            text.len()
        );
        let (error, text) = call(&session, name, json!({})).await;
        assert!(error, "tools/call {name:.40}: {text}");
    }
    let (error, text) = call(
        &session,
        "call_tool",
        json!({"name": "call_tool", "arguments": {"name": "wipe_database"}}),
    )
    .await;
    assert!(error, "{text}");
    // Malformed wrappers are tool errors the model can read.
    for arguments in [
        json!({}),
        json!({"name": 7}),
        json!({"name": "read_note", "arguments": [1]}),
    ] {
        let (error, text) = call(&session, "call_tool", arguments.clone()).await;
        assert!(error && text.contains("call_tool"), "{arguments}: {text}");
    }
    assert_eq!(fixture.wipes.load(Ordering::SeqCst), 0, "never ran");

    // The list it sees has nothing above its ceiling either.
    let listed: Vec<String> = session
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(
        listed,
        ["read_note", "search_tools", "describe_tool", "call_tool"]
    );
    session.cancel().await.unwrap();
    fixture.http.shutdown();
}
