//! Mounting an upstream MCP server's tools (feature `upstream`): the upstream is a small
//! rmcp `ServerHandler` written here (it lists raw tools our registry could not hold:
//! `get-weather`, `searchRepositories`, a 500-character name, controls, a non-object
//! schema) or our own `McpServer`, in process over `tokio::io::duplex`. No sleeps: every
//! wait has a generous deadline that fails the test.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, Resource,
    ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use toolwright_core::{CancellationToken, Content, SafetyLevel, Tool, ToolCall};
use toolwright_gateway::upstream::{
    DEFAULT_MAX_TOOL_BYTES, Fingerprint, ListCut, MountOptions, MountUpstream, SkipReason, Skipped,
    Upstream,
};
use toolwright_mcp::McpServer;
use toolwright_runtime::{ApprovalDecision, CallOptions, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

fn raw_tool(name: &str, description: &str, schema: Value) -> McpTool {
    McpTool::new(name.to_owned(), description.to_owned(), object(schema))
}

fn annotated(mut tool: McpTool, read_only: Option<bool>, destructive: Option<bool>) -> McpTool {
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = read_only;
    annotations.destructive_hint = destructive;
    tool.annotations = Some(annotations);
    tool
}

fn city_schema() -> Value {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
}

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot really";

/// How the raw upstream lists its tools.
#[derive(Clone, Copy)]
enum Paging {
    /// `page_size` a page, the index as the cursor.
    Pages(usize),
    /// A new cursor on every page, for ever.
    Endless,
    /// The same cursor again and again.
    SameCursor,
}

/// The raw upstream: a list of tools that can change, and calls by name.
#[derive(Clone)]
struct Raw {
    tools: Arc<Mutex<Vec<McpTool>>>,
    paging: Paging,
    events: mpsc::UnboundedSender<&'static str>,
}

impl Raw {
    fn new(tools: Vec<McpTool>, paging: Paging) -> (Raw, mpsc::UnboundedReceiver<&'static str>) {
        let (events, received) = mpsc::unbounded_channel();
        (
            Raw {
                tools: Arc::new(Mutex::new(tools)),
                paging,
                events,
            },
            received,
        )
    }
}

impl ServerHandler for Raw {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        );
        info.server_info.name = "raw-upstream".into();
        info
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tools.lock().unwrap().clone();
        let cursor = request.and_then(|r| r.cursor);
        Ok(match self.paging {
            Paging::Pages(size) => {
                let start: usize = cursor.map_or(0, |c| c.parse().unwrap());
                let end = (start + size).min(tools.len());
                let mut result = ListToolsResult::with_all_items(tools[start..end].to_vec());
                result.next_cursor = (end < tools.len()).then(|| end.to_string());
                result
            }
            Paging::Endless => {
                let next: u64 = cursor.map_or(0, |c| c.parse().unwrap()) + 1;
                let mut result = ListToolsResult::with_all_items(vec![raw_tool(
                    &format!("tool{next}"),
                    "One more.",
                    empty_schema(),
                )]);
                result.next_cursor = Some(next.to_string());
                result
            }
            Paging::SameCursor => {
                let mut result = ListToolsResult::with_all_items(tools);
                result.next_cursor = Some("again".into());
                result
            }
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let result = match request.name.as_ref() {
            "get-weather" => CallToolResult::success(vec![ContentBlock::text(format!(
                "sunny in {}",
                arguments["city"].as_str().unwrap_or("?")
            ))]),
            "structured" => {
                let mut result = CallToolResult::success(vec![ContentBlock::text("21 degrees")]);
                result.structured_content = Some(json!({"temperature": 21}));
                result
            }
            "image" => CallToolResult::success(vec![
                ContentBlock::image(
                    base64::engine::general_purpose::STANDARD.encode(PNG),
                    "image/png",
                ),
                ContentBlock::resource_link(Resource::new("file:///a.txt", "a.txt")),
                ContentBlock::embedded_text("file:///b.txt", "bee"),
            ]),
            "slow" => {
                let _ = self.events.send("slow started");
                context.ct.cancelled().await;
                let _ = self.events.send("slow cancelled");
                CallToolResult::error(vec![ContentBlock::text("cancelled")])
            }
            "progress" => {
                if let Some(token) = context.meta.get_progress_token() {
                    let _ = context
                        .peer
                        .notify_progress(
                            ProgressNotificationParam::new(token, 1.0)
                                .with_total(2.0)
                                .with_message("half way"),
                        )
                        .await;
                }
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
            "failing" => CallToolResult::error(vec![ContentBlock::text("upstream says no")]),
            _ => CallToolResult::success(vec![ContentBlock::text("ok")]),
        };
        Ok(result.into())
    }
}

/// Serves `handler` in process and connects an `Upstream` to it.
async fn connect<S: ServerHandler>(handler: S) -> Upstream {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = handler.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    within(
        "the handshake",
        Upstream::connect_transport("in-process", tokio::io::split(client_io)),
    )
    .await
    .unwrap()
}

fn standard_tools() -> Vec<McpTool> {
    vec![
        annotated(
            raw_tool(
                "get-weather",
                "The weather in a city. \u{202e}txet neddih",
                city_schema(),
            ),
            Some(true),
            None,
        ),
        annotated(
            raw_tool("searchRepositories", "Search.", empty_schema()),
            None,
            Some(false),
        ),
        raw_tool(&"y".repeat(500), "A long name.", empty_schema()),
        raw_tool("evil\u{1b}[31m\nname", "Controls.", empty_schema()),
        raw_tool("not-object", "A string schema.", json!({"type": "string"})),
        {
            let mut tool = raw_tool("structured", "Structured.", empty_schema());
            tool.output_schema = Some(Arc::new(object(json!({
                "type": "object",
                "properties": {"temperature": {"type": "integer"}},
                "required": ["temperature"]
            }))));
            tool
        },
        raw_tool("image", "An image.", empty_schema()),
        raw_tool("slow", "Waits for cancellation.", empty_schema()),
        raw_tool("progress", "Reports progress.", empty_schema()),
        raw_tool("failing", "Fails.", empty_schema()),
    ]
}

fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall::new("1", name, arguments)
}

/// An executor that approves everything (the tests of content, not of policy).
fn approving(registry: &Arc<ToolRegistry>) -> Executor {
    Executor::builder(registry.clone())
        .approval(|_| async { ApprovalDecision::Approved })
        .build()
}

#[tokio::test]
async fn names_mapping_schemas_and_default_safety() {
    let (raw, _events) = Raw::new(standard_tools(), Paging::Pages(3));
    let upstream = connect(raw).await;
    assert_eq!(upstream.server_name(), "raw-upstream");
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("up")))
        .await
        .unwrap();
    let report = mount.report();
    let mut names: Vec<&str> = report.added.iter().map(|t| t.name.as_str()).collect();
    names.sort();
    let long = names
        .iter()
        .find(|n| n.starts_with("up_yyy"))
        .copied()
        .unwrap();
    assert_eq!(long.len(), 64);
    assert_eq!(
        names,
        [
            "up_evil_31m_name",
            "up_failing",
            "up_get_weather",
            "up_image",
            "up_progress",
            "up_search_repositories",
            "up_slow",
            "up_structured",
            long,
        ]
    );
    // The non-object schema is not mounted, with the builder's reason.
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].upstream_name, "not-object");
    assert!(
        matches!(&report.skipped[0].reason, SkipReason::InvalidDefinition(r) if r.contains("input schema")),
        "{:?}",
        report.skipped[0]
    );
    assert!(report.cut.is_none());
    // Mapping both ways.
    assert_eq!(
        mount.upstream_name("up_get_weather").as_deref(),
        Some("get-weather")
    );
    assert_eq!(
        mount.mounted_name("searchRepositories").as_deref(),
        Some("up_search_repositories")
    );
    assert_eq!(
        mount.upstream_name("up_evil_31m_name").as_deref(),
        Some("evil\u{1b}[31m\nname")
    );
    // Schemas kept; everything dangerous by default (annotations ignored: not trusted).
    let weather = registry.get("up_get_weather").unwrap();
    assert_eq!(weather.input_schema(), &city_schema());
    assert_eq!(weather.safety(), SafetyLevel::Dangerous);
    assert!(
        registry
            .get("up_structured")
            .unwrap()
            .output_schema()
            .is_some()
    );
    // The description says where the tool comes from; the bidi control is escaped.
    assert_eq!(
        weather.description(),
        "[Tool `get-weather` of the upstream MCP server `raw-upstream`, mounted as `up`.] The weather in a city. \\u{202e}txet neddih"
    );
    let evil = registry.get("up_evil_31m_name").unwrap();
    assert!(evil.description().contains("`evil\\u{1b}[31m\\nname`"));
    // Without an approval handler, a dangerous tool is refused.
    let executor = Executor::builder(registry.clone()).build();
    let result = within(
        "refused call",
        executor.execute(call("up_get_weather", json!({"city": "Paris"}))),
    )
    .await;
    assert!(!result.success, "{result:?}");
    // With one, the call goes upstream under its own name.
    let result = within(
        "approved call",
        approving(&registry).execute(call("up_get_weather", json!({"city": "Paris"}))),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.content, "sunny in Paris");
    // Arguments are checked against the upstream's schema before anything is sent.
    let result = approving(&registry)
        .execute(call("up_get_weather", json!({})))
        .await;
    assert!(!result.success);
    assert!(result.error.unwrap().contains("city"));
}

#[tokio::test]
async fn trust_and_overrides_decide_safety() {
    let (raw, _events) = Raw::new(standard_tools(), Paging::Pages(100));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("t")
                .trusted(true)
                .safety("ima*", SafetyLevel::Safe)
                .safety("*", SafetyLevel::Dangerous)
                .safety("failing", SafetyLevel::Cautious),
        ),
    )
    .await
    .unwrap();
    // `*` wins over the annotations; so the hints only count without an override.
    assert_eq!(
        registry.get("t_get_weather").unwrap().safety(),
        SafetyLevel::Dangerous
    );
    assert_eq!(registry.get("t_image").unwrap().safety(), SafetyLevel::Safe);
    assert_eq!(
        registry.get("t_failing").unwrap().safety(),
        SafetyLevel::Cautious
    );

    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount trusted",
        registry.mount(&upstream, MountOptions::new("t").trusted(true)),
    )
    .await
    .unwrap();
    assert_eq!(
        registry.get("t_get_weather").unwrap().safety(),
        SafetyLevel::Safe
    );
    assert_eq!(
        registry.get("t_search_repositories").unwrap().safety(),
        SafetyLevel::Cautious
    );
    assert_eq!(
        registry.get("t_image").unwrap().safety(),
        SafetyLevel::Dangerous
    );
    // A safe mounted tool runs without an approval handler.
    let executor = Executor::builder(registry.clone()).build();
    let result = executor
        .execute(call("t_get_weather", json!({"city": "Oslo"})))
        .await;
    assert!(result.success, "{result:?}");
}

#[tokio::test]
async fn content_passes_through() {
    let (raw, _events) = Raw::new(standard_tools(), Paging::Pages(4));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    within("mount", registry.mount(&upstream, MountOptions::new("c")))
        .await
        .unwrap();
    let executor = approving(&registry);
    let result = within(
        "structured",
        executor.execute(call("c_structured", json!({}))),
    )
    .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.structured_content, Some(json!({"temperature": 21})));

    let result = within("image", executor.execute(call("c_image", json!({})))).await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.blocks.len(), 3);
    match &result.blocks[0] {
        Content::Image(image) => {
            assert_eq!(image.data, PNG);
            assert_eq!(image.mime_type, "image/png");
        }
        other => panic!("not an image: {other:?}"),
    }
    assert!(
        matches!(&result.blocks[1], Content::ResourceLink(link) if link.uri == "file:///a.txt")
    );
    assert!(matches!(&result.blocks[2], Content::Resource(r) if r.uri == "file:///b.txt"));

    let result = within("failing", executor.execute(call("c_failing", json!({})))).await;
    assert!(!result.success);
    assert!(
        result
            .error
            .as_deref()
            .unwrap()
            .contains("upstream says no"),
        "{result:?}"
    );
}

#[tokio::test]
async fn cancellation_reaches_the_upstream_and_progress_comes_back() {
    let (raw, mut events) = Raw::new(standard_tools(), Paging::Pages(100));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    within("mount", registry.mount(&upstream, MountOptions::new("p")))
        .await
        .unwrap();
    let executor = approving(&registry);

    let token = CancellationToken::new();
    let running = tokio::spawn({
        let executor = executor.clone();
        let token = token.clone();
        async move {
            executor
                .execute_with(
                    call("p_slow", json!({})),
                    CallOptions::new().cancellation(token),
                )
                .await
        }
    });
    assert_eq!(
        within("the slow tool starts", events.recv()).await,
        Some("slow started")
    );
    token.cancel();
    assert_eq!(
        within("the upstream sees the cancellation", events.recv()).await,
        Some("slow cancelled")
    );
    let report = within("the call ends", running).await.unwrap();
    assert!(!report.result.success);

    let progress = Arc::new(Mutex::new(Vec::new()));
    let report = within(
        "progress",
        executor.execute_with(
            call("p_progress", json!({})),
            CallOptions::new().progress({
                let progress = progress.clone();
                move |p| progress.lock().unwrap().push(p)
            }),
        ),
    )
    .await;
    assert!(report.result.success, "{:?}", report.result);
    let progress = progress.lock().unwrap();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert_eq!(progress[0].progress, 1.0);
    assert_eq!(progress[0].total, Some(2.0));
    assert_eq!(progress[0].message.as_deref(), Some("half way"));
}

#[tokio::test]
async fn collisions_are_reported_never_dropped_silently() {
    let (raw, _events) = Raw::new(
        vec![
            raw_tool("get-weather", "A.", empty_schema()),
            raw_tool("get_weather", "B.", empty_schema()),
            raw_tool("getWeather", "C.", empty_schema()),
            raw_tool("taken", "D.", empty_schema()),
            raw_tool("fine", "E.", empty_schema()),
        ],
        Paging::Pages(2),
    );
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Tool::builder("c_taken")
                .description("Ours.")
                .handler(|_| async { "ours" })
                .build()
                .unwrap(),
        )
        .unwrap();
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("c")))
        .await
        .unwrap();
    let report = mount.report();
    assert_eq!(
        report
            .added
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["c_fine"]
    );
    assert_eq!(report.skipped.len(), 4, "{report}");
    let weather: Vec<_> = report
        .skipped
        .iter()
        .filter(|s| s.name.as_deref() == Some("c_get_weather"))
        .collect();
    assert_eq!(weather.len(), 3);
    for skipped in weather {
        let SkipReason::SameName { others } = &skipped.reason else {
            panic!("{skipped:?}");
        };
        assert_eq!(others.len(), 2);
    }
    assert!(
        report
            .skipped
            .iter()
            .any(|s| s.upstream_name == "taken" && s.reason == SkipReason::AlreadyRegistered)
    );
    // Ours is untouched.
    assert_eq!(registry.get("c_taken").unwrap().description(), "Ours.");
    assert!(report.to_string().contains("skipped `getWeather`"));
}

#[tokio::test]
async fn pinned_fingerprints_and_refresh() {
    let (raw, _events) = Raw::new(
        vec![
            raw_tool("alpha", "First.", empty_schema()),
            raw_tool("beta", "Second.", empty_schema()),
        ],
        Paging::Pages(1),
    );
    let tools = raw.tools.clone();
    let upstream = connect(raw).await;
    let alpha = Fingerprint::of(&raw_tool("alpha", "First.", empty_schema()));
    let wrong = Fingerprint::of(&raw_tool("beta", "Something else.", empty_schema()));
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("f")
                .pin("alpha", alpha)
                .pin("beta", wrong),
        ),
    )
    .await
    .unwrap();
    let report = mount.report();
    assert_eq!(report.added.len(), 2);
    assert_eq!(report.changed.len(), 1);
    let change = &report.changed[0];
    assert_eq!(
        (change.name.as_str(), change.pinned, change.expected),
        ("f_beta", true, wrong)
    );
    let enabled = |name: &str| registry.get(name).map(|_| registry.is_enabled(name));
    assert_eq!(enabled("f_alpha"), Some(true));
    assert_eq!(enabled("f_beta"), Some(false));

    // The upstream changes: alpha's schema, beta gone, gamma new; it says so.
    let mut changes = upstream.tool_list_changes();
    {
        let mut tools = tools.lock().unwrap();
        *tools = vec![
            raw_tool("alpha", "First.", city_schema()),
            raw_tool("gamma", "Third.", empty_schema()),
        ];
    }
    let report = within("refresh", mount.refresh()).await.unwrap();
    assert_eq!(
        report
            .added
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f_gamma"]
    );
    assert_eq!(
        report
            .removed
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f_beta"]
    );
    assert_eq!(report.changed.len(), 1);
    assert!(report.changed[0].pinned);
    assert_eq!(report.changed[0].expected, alpha);
    assert!(registry.get("f_beta").is_none());
    assert_eq!(
        registry.get("f_alpha").unwrap().input_schema(),
        &city_schema()
    );
    assert_eq!(enabled("f_alpha"), Some(false));
    assert_eq!(enabled("f_gamma"), Some(true));
    // A new definition the builder refuses takes the old one out of the registry.
    tools.lock().unwrap()[0] = raw_tool("alpha", "First.", json!({"type": "string"}));
    let report = within("refresh", mount.refresh()).await.unwrap();
    assert_eq!(
        report
            .removed
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["f_alpha"]
    );
    assert!(matches!(
        report.skipped[0].reason,
        SkipReason::InvalidDefinition(_)
    ));
    assert!(registry.get("f_alpha").is_none());
    assert_eq!(mount.upstream_name("f_alpha"), None);
    // No list_changed was sent by this upstream for a direct edit; the watcher has none.
    assert!(
        tokio::time::timeout(Duration::ZERO, changes.changed())
            .await
            .is_err()
    );
}

#[tokio::test]
async fn list_changed_from_our_own_server_as_upstream() {
    // Our own McpServer as the upstream, over a registry we change.
    let upstream_registry = Arc::new(ToolRegistry::new());
    upstream_registry
        .register(
            Tool::builder("echo")
                .description("Echo the text.")
                .input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}))
                .handler(|args: Map<String, Value>| async move { args["text"].as_str().unwrap_or_default().to_owned() })
                .build()
                .unwrap(),
        )
        .unwrap();
    let server = McpServer::new(Executor::builder(upstream_registry.clone()).build());
    let upstream = connect(server).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(&upstream, MountOptions::new("ours").trusted(true)),
    )
    .await
    .unwrap();
    assert_eq!(
        mount
            .tools()
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["ours_echo"]
    );
    // Our server marks a safe tool read-only; trusted, it stays safe here.
    assert_eq!(
        registry.get("ours_echo").unwrap().safety(),
        SafetyLevel::Safe
    );
    let result = Executor::builder(registry.clone())
        .build()
        .execute(call("ours_echo", json!({"text": "hi"})))
        .await;
    assert_eq!(result.content, "hi");

    let mut changes = upstream.tool_list_changes();
    upstream_registry
        .register(
            Tool::builder("shout")
                .description("Shout.")
                .handler(|_| async { "HEY" })
                .build()
                .unwrap(),
        )
        .unwrap();
    assert!(within("list_changed", changes.changed()).await);
    let report = within("refresh", mount.refresh()).await.unwrap();
    assert_eq!(
        report
            .added
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["ours_shout"]
    );

    // Followed: the next change refreshes on its own.
    let mount = Arc::new(mount);
    let (reports, mut received) = mpsc::unbounded_channel();
    let following = mount.follow(move |report| {
        let _ = reports.send(report);
    });
    assert!(upstream_registry.remove("shout").is_some());
    let report = within("the followed refresh", received.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        report
            .removed
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["ours_shout"]
    );
    assert!(registry.get("ours_shout").is_none());
    upstream.close().await;
    within("following ends with the connection", following)
        .await
        .unwrap();
    let result = Executor::builder(registry.clone())
        .build()
        .execute(call("ours_echo", json!({"text": "hi"})))
        .await;
    assert!(!result.success);
}

#[tokio::test]
async fn a_hostile_list_is_bounded_and_reported() {
    // 10,000 tools, 1000 a page.
    let many: Vec<McpTool> = (0..10_000)
        .map(|i| raw_tool(&format!("t{i}"), "Many.", empty_schema()))
        .collect();
    let (raw, _events) = Raw::new(many, Paging::Pages(1000));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount of 10,000",
        registry.mount(&upstream, MountOptions::new("m").max_tools(1500)),
    )
    .await
    .unwrap();
    assert_eq!(mount.report().added.len(), 1500);
    assert_eq!(
        mount.report().cut,
        Some(ListCut::TooManyTools { limit: 1500 })
    );

    // An endless cursor.
    let (raw, _events) = Raw::new(Vec::new(), Paging::Endless);
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount of an endless list",
        registry.mount(&upstream, MountOptions::new("e").max_pages(20)),
    )
    .await
    .unwrap();
    assert_eq!(mount.report().added.len(), 20);
    assert_eq!(
        mount.report().cut,
        Some(ListCut::TooManyPages { limit: 20 })
    );

    // The same cursor again.
    let (raw, _events) = Raw::new(
        vec![raw_tool("one", "One.", empty_schema())],
        Paging::SameCursor,
    );
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount of a looping list",
        registry.mount(&upstream, MountOptions::new("l")),
    )
    .await
    .unwrap();
    // Page 1 gives `again`; page 2 gives it again: the loop is cut there. The tool listed
    // twice maps to one name twice, so it is reported, not mounted.
    assert_eq!(
        mount.report().cut,
        Some(ListCut::RepeatedCursor { page: 2 })
    );
    assert!(mount.report().added.is_empty());
    assert!(matches!(
        mount.report().skipped[0].reason,
        SkipReason::SameName { .. }
    ));
}

#[tokio::test]
async fn a_bad_namespace_is_refused() {
    let (raw, _events) = Raw::new(Vec::new(), Paging::Pages(1));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    for namespace in ["", "GitHub", "with-dash", "trailing_"] {
        let error = registry
            .mount(&upstream, MountOptions::new(namespace))
            .await
            .unwrap_err();
        assert!(error.to_string().starts_with("mount namespace"), "{error}");
    }
}

#[tokio::test]
async fn a_command_that_does_not_start_is_an_error() {
    let error = Upstream::stdio("/nonexistent/toolwright-upstream", ["--x"])
        .connect()
        .await
        .unwrap_err();
    assert!(
        error.to_string().starts_with(
            "could not start the upstream MCP server `/nonexistent/toolwright-upstream --x`"
        ),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_initialize_is_given_up() {
    // It reads what we send and answers nothing: connecting fails after the handshake's
    // timeout (the clock is paused, so it advances as soon as everything waits) instead of
    // keeping a gateway from ever starting.
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let silent = tokio::spawn(async move {
        let mut server_io = server_io;
        let mut sink = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut server_io, &mut sink).await;
    });
    let connected = Upstream::connect_transport("silent", tokio::io::split(client_io)).await;
    let Err(error) = connected else {
        panic!("a server that never answered was connected");
    };
    assert!(
        matches!(
            error,
            toolwright_gateway::upstream::UpstreamError::Handshake { .. }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("initialize"), "{error}");
    silent.abort();
}

/// The attack: the operator pins `delete_file` and makes it dangerous (the rest cautious);
/// the upstream renames it `deleteFile` (the same mounted name) and says its list changed.
/// The pin and the override used to match the raw name, so `hostile_delete_file` ran as
/// cautious, unpinned. Both now follow the mounted name, and the rename is a change.
#[tokio::test]
async fn a_renamed_tool_keeps_its_pin_and_its_override() {
    let original = raw_tool("delete_file", "Delete a file.", city_schema());
    let (raw, _events) = Raw::new(vec![original.clone()], Paging::Pages(10));
    let tools = raw.tools.clone();
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("hostile")
                .default_safety(SafetyLevel::Cautious)
                .safety("delete_file", SafetyLevel::Dangerous)
                .pin("delete_file", Fingerprint::of(&original)),
        ),
    )
    .await
    .unwrap();
    assert!(mount.report().is_clean(), "{}", mount.report());
    assert_eq!(
        registry.get("hostile_delete_file").unwrap().safety(),
        SafetyLevel::Dangerous
    );

    *tools.lock().unwrap() = vec![raw_tool("deleteFile", "Delete a file.", city_schema())];
    let report = within("refresh", mount.refresh()).await.unwrap();
    let tool = registry.get("hostile_delete_file").unwrap();
    assert_eq!(tool.safety(), SafetyLevel::Dangerous, "{report}");
    assert!(!registry.is_enabled("hostile_delete_file"), "{report}");
    assert!(
        report
            .changed
            .iter()
            .any(|c| c.name == "hostile_delete_file" && c.pinned),
        "{report}"
    );
    // No approval handler: a dangerous (and disabled) tool does not run.
    let result = within(
        "call",
        Executor::builder(registry.clone())
            .build()
            .execute(call("hostile_delete_file", json!({"city": "x"}))),
    )
    .await;
    assert!(!result.success, "{result:?}");

    // A glob written in the upstream's spelling follows the mounted name too.
    let registry = Arc::new(ToolRegistry::new());
    within(
        "mount with a glob",
        registry.mount(
            &upstream,
            MountOptions::new("g")
                .safety("Delete*", SafetyLevel::Dangerous)
                .safety("*", SafetyLevel::Safe),
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        registry.get("g_delete_file").unwrap().safety(),
        SafetyLevel::Dangerous
    );
}

/// An unpinned tool that disappears and comes back under the same mounted name with
/// another definition is reported as changed, not as a new tool.
#[tokio::test]
async fn a_tool_gone_and_back_changed_is_a_change() {
    let (raw, _events) = Raw::new(
        vec![raw_tool("send_mail", "Send.", empty_schema())],
        Paging::Pages(10),
    );
    let tools = raw.tools.clone();
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("m")))
        .await
        .unwrap();
    tools.lock().unwrap().clear();
    let report = within("refresh (gone)", mount.refresh()).await.unwrap();
    assert_eq!(report.removed.len(), 1);
    *tools.lock().unwrap() = vec![raw_tool("sendMail", "Send to anyone.", empty_schema())];
    let report = within("refresh (back)", mount.refresh()).await.unwrap();
    assert!(
        report.changed.iter().any(|c| c.name == "m_send_mail"),
        "{report}"
    );
    assert!(!report.is_clean());
}

/// A tool whose input schema is about `bytes` long (one huge description).
fn huge_tool(name: &str, bytes: usize) -> McpTool {
    raw_tool(
        name,
        "Huge.",
        json!({"type": "object", "properties": {"x": {"type": "string", "description": "a".repeat(bytes)}}}),
    )
}

/// The attack, scaled down: an upstream lists tools with huge schemas (the report mounted
/// 100 of ~10 MB and took 4 GB). With the defaults a 1 MiB definition is refused; the
/// whole mount is bounded too; each refusal is reported with the limit it hit.
#[tokio::test]
async fn huge_definitions_are_refused_and_reported() {
    let mut tools = vec![raw_tool("small", "Small.", empty_schema())];
    tools.extend((0..3).map(|i| huge_tool(&format!("huge{i}"), 1 << 20)));
    let (raw, _events) = Raw::new(tools, Paging::Pages(1));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("h")))
        .await
        .unwrap();
    let report = mount.report();
    assert!(registry.get("h_small").is_some(), "{report}");
    for i in 0..3 {
        assert!(registry.get(&format!("h_huge{i}")).is_none(), "{report}");
    }
    let too_large = report
        .skipped
        .iter()
        .filter(|s| {
            matches!(s.reason, SkipReason::TooLarge { bytes, limit }
                if limit == DEFAULT_MAX_TOOL_BYTES && bytes > 1 << 20)
        })
        .count();
    assert_eq!(too_large, 3, "{report}");
    assert!(report.to_string().contains("max_tool_bytes"), "{report}");

    // The whole mount, scaled down: three of 3 KiB fit in 8 KiB two at a time.
    let tools = (0..3)
        .map(|i| huge_tool(&format!("mid{i}"), 3 * 1024))
        .collect();
    let (raw, _events) = Raw::new(tools, Paging::Pages(1));
    let upstream = connect(raw).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount with a small total",
        registry.mount(
            &upstream,
            MountOptions::new("m")
                .max_tool_bytes(4 * 1024)
                .max_mount_bytes(8 * 1024),
        ),
    )
    .await
    .unwrap();
    let report = mount.report();
    assert_eq!(report.added.len(), 2, "{report}");
    assert!(
        matches!(
            report.skipped.as_slice(),
            [Skipped {
                reason: SkipReason::MountFull { limit: 8192, .. },
                ..
            }]
        ),
        "{report}"
    );
    assert!(report.to_string().contains("max_mount_bytes"), "{report}");
}
