//! Prompts, resources, completions and skills served by `McpServer`, against rmcp's client
//! (the handshake era) and raw 2026-07-28 requests: what is listed and read, the policy
//! (a ceiling hides and refuses; a template's variable never leaves its segment), the codes
//! of refusals, subscriptions as a pool, and the notifications a subscriber hears.

// `resources/subscribe` is legacy-only in rmcp (the 2026-07-28 revision listens instead); the
// handshake-era clients these tests are still use it.
#![allow(deprecated)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, ClientCapabilities, ClientConfig, CompleteRequestParams, ElicitRequestParams,
    ElicitResult, ElicitationAction, ErrorCode, GetPromptRequestParams, Implementation,
    ReadResourceRequestParams, Reference, ResourceContents, ResourceUpdatedNotificationParam,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};
use toolwright_core::{
    Completions, Prompt, PromptArgument, Resource, ResourceRequest, SafetyLevel, ToolContext,
};
use toolwright_mcp::{HttpServer, McpServer};
use toolwright_runtime::{Executor, ToolRegistry};

/// What the client heard.
#[derive(Clone, Default)]
struct Client {
    updated: Arc<Mutex<Vec<String>>>,
    told: Arc<tokio::sync::Notify>,
    prompts_changed: Arc<AtomicUsize>,
    /// Declares form elicitation and answers `{"name": "Ada"}`, recording the question.
    answers: bool,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.answers {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(
            capabilities,
            Implementation::new("primitives-test", "0.0.1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"})))
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
        self.told.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.prompts_changed.fetch_add(1, Ordering::SeqCst);
        self.told.notify_one();
    }
}

fn greeting() -> Prompt {
    Prompt::builder("greeting")
        .description("Greet someone by name")
        .argument(
            PromptArgument::new("name")
                .description("Who to greet")
                .required(true),
        )
        .handler(
            |arguments: toolwright_core::PromptArguments, _: ToolContext| async move {
                Ok::<_, toolwright_core::ToolError>(format!("Say hello to {}.", arguments["name"]))
            },
        )
        .completion("name", |request: &toolwright_core::CompletionRequest| {
            Completions {
                values: ["ada", "alan", "grace"]
                    .into_iter()
                    .filter(|name| name.starts_with(&request.value))
                    .map(str::to_owned)
                    .collect(),
                total: None,
                has_more: false,
            }
        })
        .build()
        .unwrap()
}

fn note() -> Resource {
    Resource::builder("note", "notes://{id}")
        .description("A note by id")
        .mime_type("text/plain")
        .handler(|request: ResourceRequest, _: ToolContext| async move {
            Ok::<_, toolwright_core::ToolError>(format!("note {}", request.variable("id")?))
        })
        .build()
        .unwrap()
}

fn readme() -> Resource {
    Resource::builder("readme", "docs://readme")
        .description("The readme")
        .mime_type("text/markdown")
        .handler(|_: ResourceRequest, _: ToolContext| async move {
            Ok::<_, toolwright_core::ToolError>("# Read me".to_owned())
        })
        .build()
        .unwrap()
}

fn secrets() -> Resource {
    Resource::builder("secrets", "vault://secrets")
        .description("What only a cautious caller may read")
        .safety(SafetyLevel::Cautious)
        .handler(|_: ResourceRequest, _: ToolContext| async move {
            Ok::<_, toolwright_core::ToolError>("hunter2".to_owned())
        })
        .build()
        .unwrap()
}

fn registry() -> Arc<ToolRegistry> {
    let registry = ToolRegistry::new();
    registry.register_prompt(greeting()).unwrap();
    registry.register_resource(note()).unwrap();
    registry.register_resource(readme()).unwrap();
    registry.register_resource(secrets()).unwrap();
    Arc::new(registry)
}

async fn start(
    registry: Arc<ToolRegistry>,
    max_safety: SafetyLevel,
    configure: impl FnOnce(McpServer) -> McpServer,
) -> HttpServer {
    let executor = Executor::builder(registry)
        .max_safety(max_safety)
        .timeout(Duration::from_secs(10))
        .build();
    configure(McpServer::new(executor))
        .serve_http(([127, 0, 0, 1], 0).into())
        .await
        .unwrap()
}

async fn connect(http: &HttpServer, client: Client) -> RunningService<RoleClient, Client> {
    client
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap()
}

fn code(error: ServiceError) -> ErrorCode {
    match error {
        ServiceError::McpError(error) => error.code,
        other => panic!("not an MCP error: {other:?}"),
    }
}

fn text(contents: &[ResourceContents]) -> &str {
    match &contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text,
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn lists_reads_gets_and_completes_under_the_ceiling() {
    let http = start(registry(), SafetyLevel::Safe, |s| s).await;
    let client = connect(&http, Client::default()).await;
    let capabilities = &client.peer_info().unwrap().capabilities;
    assert!(capabilities.prompts.is_some() && capabilities.completions.is_some());
    assert_eq!(
        capabilities.resources.as_ref().unwrap().subscribe,
        Some(true)
    );

    // The cautious resource is above the ceiling: not listed.
    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["docs://readme"]);
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "notes://{id}");

    let read = client
        .read_resource(ReadResourceRequestParams::new("notes://7"))
        .await
        .unwrap();
    assert_eq!(text(&read.contents), "note 7");

    // Above the ceiling: refused, not read.
    let refused = client
        .read_resource(ReadResourceRequestParams::new("vault://secrets"))
        .await
        .unwrap_err();
    assert_ne!(code(refused), ErrorCode::INTERNAL_ERROR);

    let prompt = client
        .get_prompt(
            GetPromptRequestParams::new("greeting")
                .with_arguments(json!({"name": "Ada"}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"],
        "Say hello to Ada."
    );
    // A missing required argument: -32602, naming it.
    let missing = client
        .get_prompt(GetPromptRequestParams::new("greeting"))
        .await
        .unwrap_err();
    let ServiceError::McpError(missing) = missing else {
        panic!("{missing:?}")
    };
    assert_eq!(missing.code, ErrorCode::INVALID_PARAMS);
    assert!(missing.message.contains("name"), "{}", missing.message);
    // An unknown prompt: -32602 too.
    let unknown = client
        .get_prompt(GetPromptRequestParams::new("nope"))
        .await
        .unwrap_err();
    assert_eq!(code(unknown), ErrorCode::INVALID_PARAMS);

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("greeting"),
            ArgumentInfo::new("name", "a"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["ada", "alan"]);
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_uri_that_leaves_its_templates_segment_is_not_found() {
    let http = start(registry(), SafetyLevel::Dangerous, |s| s).await;
    let client = connect(&http, Client::default()).await;
    for uri in [
        "notes://a/b",
        "notes://..",
        "notes://.",
        "notes://a%2Fb",
        "notes://a%2fb",
        "notes://%2E%2E",
        "notes://",
        "nowhere://7",
    ] {
        let error = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err();
        assert_eq!(code(error), ErrorCode::RESOURCE_NOT_FOUND, "{uri}");
    }
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn subscriptions_are_a_pool_per_session_and_per_caller() {
    let http = start(registry(), SafetyLevel::Dangerous, |s| {
        s.max_subscriptions(3, 5)
    })
    .await;
    let first = connect(&http, Client::default()).await;
    // An attacker's 10,000 URIs: the session's share, then refusals, at once.
    let mut accepted = 0;
    let mut refused = 0;
    for id in 0..10_000 {
        match first
            .subscribe(SubscribeRequestParams::new(format!("notes://{id}")))
            .await
        {
            Ok(()) => accepted += 1,
            Err(error) => {
                let ServiceError::McpError(error) = error else {
                    panic!("{error:?}")
                };
                assert!(
                    error.message.contains("max_subscriptions_per_session"),
                    "{}",
                    error.message
                );
                refused += 1;
                if refused == 20 {
                    break; // refusals are steady; the rest would be the same
                }
            }
        }
    }
    assert_eq!((accepted, refused), (3, 20));
    // Subscribing again to a URI it has costs nothing.
    first
        .subscribe(SubscribeRequestParams::new("notes://0"))
        .await
        .unwrap();

    // A second session of the same caller (no authentication: the local user) has the
    // rest of the caller's share: 2.
    let second = connect(&http, Client::default()).await;
    for id in 0..2 {
        second
            .subscribe(SubscribeRequestParams::new(format!("notes://b{id}")))
            .await
            .unwrap();
    }
    let over = second
        .subscribe(SubscribeRequestParams::new("notes://b2"))
        .await
        .unwrap_err();
    let ServiceError::McpError(over) = over else {
        panic!("{over:?}")
    };
    assert!(
        over.message.contains("max_subscriptions_per_principal"),
        "{}",
        over.message
    );
    // Unsubscribing gives a slot back.
    first
        .unsubscribe(UnsubscribeRequestParams::new("notes://0"))
        .await
        .unwrap();
    second
        .subscribe(SubscribeRequestParams::new("notes://b2"))
        .await
        .unwrap();
    // A resource above the ceiling cannot be watched (nor learnt of).
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_hidden_resource_answers_a_subscription_as_an_unknown_one_and_is_never_told() {
    let registry = registry();
    let http = start(Arc::clone(&registry), SafetyLevel::Safe, |s| s).await;
    let watcher = Client::default();
    let client = connect(&http, watcher.clone()).await;
    // Above the ceiling and unknown: the same answer (accepted, counted), no existence leak.
    let hidden = client
        .subscribe(SubscribeRequestParams::new("vault://secrets"))
        .await;
    let unknown = client
        .subscribe(SubscribeRequestParams::new("vault://nothing"))
        .await;
    assert_eq!(
        (format!("{hidden:?}"), format!("{unknown:?}")),
        ("Ok(())".to_owned(), "Ok(())".to_owned())
    );
    // Not a URI: refused as invalid, whatever it would name.
    let error = client
        .subscribe(SubscribeRequestParams::new("no scheme"))
        .await
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::INVALID_PARAMS);
    // The hidden one's update is not sent; the readable one's, sent after it, is the first.
    client
        .subscribe(SubscribeRequestParams::new("docs://readme"))
        .await
        .unwrap();
    registry.notify_resource_updated("vault://secrets");
    registry.notify_resource_updated("vault://nothing");
    registry.notify_resource_updated("docs://readme");
    tokio::time::timeout(Duration::from_secs(30), watcher.told.notified())
        .await
        .expect("no notifications/resources/updated within 30 s");
    assert_eq!(*watcher.updated.lock().unwrap(), ["docs://readme"]);
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_uri_that_appears_later_is_told_to_its_early_subscriber() {
    let registry = Arc::new(ToolRegistry::new());
    let http = start(Arc::clone(&registry), SafetyLevel::Safe, |s| s).await;
    let watcher = Client::default();
    let client = connect(&http, watcher.clone()).await;
    client
        .subscribe(SubscribeRequestParams::new("docs://readme"))
        .await
        .unwrap();
    // Not readable yet (it does not exist): not told.
    registry.notify_resource_updated("docs://readme");
    registry.register_resource(readme()).unwrap();
    registry.notify_resource_updated("docs://readme");
    tokio::time::timeout(Duration::from_secs(30), watcher.told.notified())
        .await
        .expect("no notifications/resources/updated within 30 s");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    // The registration's own update (if any) and ours: both after it appeared.
    while watcher.updated.lock().unwrap().is_empty() {
        tokio::time::timeout_at(deadline, watcher.told.notified())
            .await
            .expect("no update within 30 s");
    }
    assert!(
        watcher
            .updated
            .lock()
            .unwrap()
            .iter()
            .all(|uri| uri == "docs://readme")
    );
    client.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_subscriber_hears_its_resource_updated_and_others_do_not() {
    let registry = registry();
    let http = start(Arc::clone(&registry), SafetyLevel::Dangerous, |s| s).await;
    let watcher = Client::default();
    let client = connect(&http, watcher.clone()).await;
    client
        .subscribe(SubscribeRequestParams::new("notes://7"))
        .await
        .unwrap();

    registry.notify_resource_updated("notes://8"); // not subscribed: not told
    registry.notify_resource_updated("notes://7");
    tokio::time::timeout(Duration::from_secs(30), watcher.told.notified())
        .await
        .expect("no notifications/resources/updated within 30 s");
    assert_eq!(*watcher.updated.lock().unwrap(), ["notes://7"]);

    // A prompt added: the prompts' list changed.
    let before = watcher.prompts_changed.load(Ordering::SeqCst);
    registry
        .register_prompt(
            Prompt::builder("later")
                .description("Added while a client is connected")
                .handler(
                    |_: toolwright_core::PromptArguments, _: ToolContext| async {
                        Ok::<_, toolwright_core::ToolError>("later")
                    },
                )
                .build()
                .unwrap(),
        )
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while watcher.prompts_changed.load(Ordering::SeqCst) == before {
        tokio::time::timeout_at(deadline, watcher.told.notified())
            .await
            .expect("no notifications/prompts/list_changed within 30 s");
    }
    client.cancel().await.unwrap();
    http.shutdown();
}

/// `_meta` of a 2026-07-28 request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "primitives-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

async fn send(http: &HttpServer, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        request = request.header("mcp-name", name);
    }
    if let Some(uri) = params.get("uri").and_then(Value::as_str) {
        request = request.header("mcp-name", uri);
    }
    let text = request
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let data = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .unwrap_or(text.as_str())
        .to_owned();
    serde_json::from_str(&data).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

#[tokio::test]
async fn the_2026_era_reads_gets_and_completes_with_caching_hints_and_sep_2164_codes() {
    let http = start(registry(), SafetyLevel::Safe, |s| s).await;
    let listed = send(&http, "resources/list", json!({})).await;
    assert_eq!(
        listed["result"]["resources"][0]["uri"], "docs://readme",
        "{listed}"
    );
    assert!(listed["result"]["ttlMs"].is_u64(), "{listed}");
    assert!(listed["result"]["cacheScope"].is_string(), "{listed}");

    let read = send(&http, "resources/read", json!({"uri": "notes://42"})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "note 42", "{read}");
    assert_eq!(read["result"]["resultType"], "complete", "{read}");

    // SEP-2164: a resource the server does not have is -32602 in this revision.
    for uri in ["notes://a%2Fb", "vault://nothing"] {
        let missing = send(&http, "resources/read", json!({"uri": uri})).await;
        assert_eq!(missing["error"]["code"], -32602, "{uri}: {missing}");
    }

    let prompt = send(
        &http,
        "prompts/get",
        json!({"name": "greeting", "arguments": {"name": "Grace"}}),
    )
    .await;
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"], "Say hello to Grace.",
        "{prompt}"
    );
    let completed = send(
        &http,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "greeting"},
               "argument": {"name": "name", "value": "g"}}),
    )
    .await;
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["grace"]),
        "{completed}"
    );
    http.shutdown();
}

#[tokio::test]
async fn a_closed_sessions_subscriptions_go_back_to_its_callers_share() {
    let http = start(registry(), SafetyLevel::Dangerous, |s| {
        s.max_subscriptions(5, 5)
    })
    .await;
    let first = connect(&http, Client::default()).await;
    for id in 0..5 {
        first
            .subscribe(SubscribeRequestParams::new(format!("notes://{id}")))
            .await
            .unwrap();
    }
    let second = connect(&http, Client::default()).await;
    assert!(
        second
            .subscribe(SubscribeRequestParams::new("notes://x"))
            .await
            .is_err(),
        "the caller's share is full"
    );
    // The first session ends: its five go back (when the server drops the session, which
    // follows the close; waited for with a deadline, not a guess of how long it takes).
    first.cancel().await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        if second
            .subscribe(SubscribeRequestParams::new("notes://x"))
            .await
            .is_ok()
        {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "a closed session's subscriptions were never released"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    second.cancel().await.unwrap();
    http.shutdown();
}

#[tokio::test]
async fn a_prompt_of_the_handshake_era_may_ask_its_user() {
    let registry = registry();
    let asking = Prompt::builder("birthday")
        .description("Ask whose birthday it is")
        .handler(
            |_: toolwright_core::PromptArguments, ctx: ToolContext| async move {
                let schema = json!({"type": "object", "properties": {"name": {"type": "string"}},
                                "required": ["name"]});
                let answer = ctx
                    .elicit_json("Whose birthday is it?", schema)
                    .await
                    .map_err(|error| toolwright_core::ToolError::new(error.to_string()))?;
                let name = match answer {
                    toolwright_core::Elicitation::Accepted(value) => value["name"].to_string(),
                    _ => "nobody".to_owned(),
                };
                Ok::<_, toolwright_core::ToolError>(format!("Sing for {name}."))
            },
        )
        .build()
        .unwrap();
    registry.register_prompt(asking).unwrap();
    let http = start(registry, SafetyLevel::Dangerous, |s| s).await;
    let user = Client {
        answers: true,
        ..Client::default()
    };
    let client = connect(&http, user.clone()).await;
    let got = client
        .get_prompt(GetPromptRequestParams::new("birthday"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&got.messages[0]).unwrap()["content"]["text"],
        "Sing for \"Ada\"."
    );
    // Attributed to its asker (the wording is the tools': "Tool `birthday` asks: ...").
    let asked = user.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].contains("`birthday`") && asked[0].ends_with("Whose birthday is it?"),
        "{asked:?}"
    );
    client.cancel().await.unwrap();
    http.shutdown();
}
