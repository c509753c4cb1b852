//! An upstream's limits (`max_concurrent`, `rate`, each with a caller's share) count what
//! its callers read as they count its tool calls: `prompts/get`, `resources/read` and
//! `completion/complete` forwarded to it take a place in the same pool. Through the
//! executor, as our MCP server asks (the caller in the call options). The upstream holds
//! every request until the test lets it go, so counts (never timing) say what was
//! admitted; every wait has a generous deadline that fails the test.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    CompletionInfo, ContentBlock, ErrorData, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, Prompt as McpPrompt, PromptArgument as McpPromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource as McpResource, ResourceContents, Role, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Map, json};
use tokio::sync::{Semaphore, mpsc};
use toolwright_core::{Caller, CompletionRequest, PromptArguments, SafetyLevel, ToolCall};
use toolwright_gateway::upstream::{Mount, MountOptions, MountUpstream, Rate, Upstream};
use toolwright_runtime::executor::{CompletionReference, PrimitiveError};
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

/// An upstream with a tool, a prompt (with a completable argument) and a resource; every
/// request of them waits for a permit the test gives, and is counted when it arrives.
#[derive(Clone)]
struct Hold {
    release: Arc<Semaphore>,
    arrived: mpsc::UnboundedSender<&'static str>,
    requests: Arc<AtomicUsize>,
}

impl Hold {
    async fn hold(&self, what: &'static str) {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let _ = self.arrived.send(what);
        if let Ok(permit) = self.release.acquire().await {
            permit.forget();
        }
    }
}

impl ServerHandler for Hold {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_completions()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let serde_json::Value::Object(schema) = json!({"type": "object", "properties": {}}) else {
            unreachable!()
        };
        Ok(ListToolsResult::with_all_items(vec![McpTool::new(
            "hold", "Waits.", schema,
        )]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.hold("call").await;
        Ok(CallToolResult::success(vec![ContentBlock::text("released")]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![McpPrompt::new(
            "brief",
            Some("A brief."),
            Some(vec![McpPromptArgument::new("topic")]),
        )]))
    }

    async fn get_prompt(
        &self,
        _request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.hold("prompt").await;
        Ok(GetPromptResponse::Complete(GetPromptResult::new(vec![
            PromptMessage::new_text(Role::User, "released"),
        ])))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![McpResource::new(
            "doc://big",
            "big",
        )]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.hold("read").await;
        Ok(ReadResourceResult::new(vec![ResourceContents::text("released", request.uri)]).into())
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.hold("complete").await;
        Ok(CompleteResult::new(
            CompletionInfo::with_all_values(vec!["released".to_owned()]).unwrap(),
        ))
    }
}

struct Bench {
    _mount: Mount,
    executor: Executor,
    release: Arc<Semaphore>,
    arrived: mpsc::UnboundedReceiver<&'static str>,
    requests: Arc<AtomicUsize>,
}

const READ: &str = "up+doc://big";
const PROMPT: &str = "up_brief";

async fn bench(options: MountOptions) -> Bench {
    let (arrived_tx, arrived) = mpsc::unbounded_channel();
    let hold = Hold {
        release: Arc::new(Semaphore::new(0)),
        arrived: arrived_tx,
        requests: Arc::default(),
    };
    let (release, requests) = (hold.release.clone(), hold.requests.clone());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = hold.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let upstream = within(
        "handshake",
        Upstream::connect_transport("hold", tokio::io::split(client_io)),
    )
    .await
    .unwrap();
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(&upstream, options.default_safety(SafetyLevel::Safe)),
    )
    .await
    .unwrap();
    assert!(registry.prompt(PROMPT).is_some(), "{:?}", mount.report());
    assert!(registry.resolve_resource(READ).is_some());
    Bench {
        _mount: mount,
        executor: Executor::builder(registry).concurrency(64).build(),
        release,
        arrived,
        requests,
    }
}

fn as_caller(caller: Option<&str>) -> CallOptions {
    match caller {
        Some(caller) => CallOptions::new().caller(Caller::new(caller.to_owned())),
        None => CallOptions::new(),
    }
}

/// What a request ended with: its text, or the refusal's.
type Ended = Result<String, String>;

impl Bench {
    fn read(&self, caller: Option<&str>) -> tokio::task::JoinHandle<Ended> {
        let (executor, options) = (self.executor.clone(), as_caller(caller));
        tokio::spawn(async move {
            match executor.read_resource(READ, &options).await {
                Ok(contents) => Ok(format!("{:?}", contents[0].body)),
                Err(error) => Err(error.to_string()),
            }
        })
    }

    fn prompt(&self, caller: Option<&str>) -> tokio::task::JoinHandle<Ended> {
        let (executor, options) = (self.executor.clone(), as_caller(caller));
        tokio::spawn(async move {
            let mut arguments = PromptArguments::new();
            arguments.insert("topic".into(), "limits".into());
            match executor.get_prompt(PROMPT, arguments, &options).await {
                Ok(output) => Ok(format!("{:?}", output.messages)),
                Err(error) => Err(error.to_string()),
            }
        })
    }

    fn call(&self, caller: Option<&str>) -> tokio::task::JoinHandle<Ended> {
        let (executor, options) = (self.executor.clone(), as_caller(caller));
        tokio::spawn(async move {
            let call = ToolCall::new("1", "up_hold", serde_json::Value::Object(Map::new()));
            let result = executor.execute_with(call, options).await.result;
            if result.success {
                Ok(result.content)
            } else {
                Err(result.content)
            }
        })
    }

    fn complete(&self, caller: Option<&str>) -> tokio::task::JoinHandle<Vec<String>> {
        let (executor, options) = (self.executor.clone(), as_caller(caller));
        tokio::spawn(async move {
            let reference = CompletionReference::Prompt(PROMPT.to_owned());
            let mut request = CompletionRequest::new("topic", "l");
            // A client cannot say whose completion it is: the options do.
            request.caller = Some("someone-else".to_owned());
            match executor.complete(&reference, &request, &options).await {
                Ok(completions) => completions.values,
                Err(PrimitiveError::Failed(error)) => vec![format!("failed: {error}")],
                Err(error) => vec![format!("error: {error}")],
            }
        })
    }

    /// Waits until the upstream has received `n` more requests; what they were.
    async fn arrived(&mut self, n: usize) -> Vec<&'static str> {
        let mut kinds = Vec::new();
        for _ in 0..n {
            kinds.push(
                within("a request to reach the upstream", self.arrived.recv())
                    .await
                    .unwrap(),
            );
        }
        kinds
    }
}

async fn refused(handle: tokio::task::JoinHandle<Ended>, names: &str) {
    let ended = within("a refusal", handle).await.unwrap();
    let error = ended.expect_err("admitted over the limit");
    assert!(error.contains("`up`"), "{error}");
    assert!(error.contains(names), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_prompts_take_places_in_the_upstreams_pool_and_a_callers_share() {
    let mut bench = bench(MountOptions::new("up").max_concurrent(4)).await;
    // Alice floods with ten reads: her share (half of 4) reaches the upstream, the other
    // eight are refused at once, while those two are still held there.
    let (results, mut alice) = mpsc::unbounded_channel();
    for _ in 0..10 {
        let (handle, results) = (bench.read(Some("alice")), results.clone());
        tokio::spawn(async move {
            if let Ok(ended) = handle.await {
                let _ = results.send(ended);
            }
        });
    }
    assert_eq!(bench.arrived(2).await, ["read", "read"]);
    // Eight end while two are held upstream: all eight are refusals.
    for _ in 0..8 {
        let error = within("alice's refusals", alice.recv())
            .await
            .unwrap()
            .expect_err("alice got more than her share");
        assert!(
            error.contains("`max_concurrent_per_caller` = 2 calls at once"),
            "{error}"
        );
        assert!(error.contains("`up`"), "{error}");
    }
    // Bob still gets his share, with prompts.
    let bob: Vec<_> = (0..2).map(|_| bench.prompt(Some("bob"))).collect();
    assert_eq!(bench.arrived(2).await, ["prompt", "prompt"]);
    // The pool is full (2 reads, 2 prompts): Carol's read and her tool call are refused
    // by the upstream's own limit; reads and calls are one pool.
    refused(
        bench.read(Some("carol")),
        "`max_concurrent` = 4 calls at once",
    )
    .await;
    refused(
        bench.call(Some("carol")),
        "`max_concurrent` = 4 calls at once",
    )
    .await;
    refused(bench.prompt(None), "`max_concurrent` = 4 calls at once").await;
    assert_eq!(bench.requests.load(Ordering::SeqCst), 4);
    bench.release.add_permits(4);
    for _ in 0..2 {
        let text = within("alice's reads", alice.recv())
            .await
            .unwrap()
            .unwrap();
        assert!(text.contains("released"), "{text}");
    }
    for handle in bob {
        let text = within("bob's prompt", handle).await.unwrap().unwrap();
        assert!(text.contains("released"), "{text}");
    }
    // Places given back: a read goes through again, and nothing more reached upstream.
    assert_eq!(bench.requests.load(Ordering::SeqCst), 4);
    let again = bench.read(Some("alice"));
    assert_eq!(bench.arrived(1).await, ["read"]);
    bench.release.add_permits(1);
    assert!(within("a read", again).await.unwrap().is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_counts_reads_and_says_when_to_retry() {
    // 4 an hour: nothing comes back within any test's run; a caller's share is 2.
    let rate: Rate = "4/h".parse().unwrap();
    let mut bench = bench(MountOptions::new("up").rate(rate)).await;
    bench.release.add_permits(100);
    let mut ended = Vec::new();
    for _ in 0..3 {
        ended.push(within("a read", bench.read(Some("alice"))).await.unwrap());
    }
    assert!(ended[0].is_ok() && ended[1].is_ok(), "{ended:?}");
    let error = ended[2].as_ref().unwrap_err();
    assert!(error.contains("`rate_per_caller` = 2/h"), "{error}");
    assert!(error.contains("try again in"), "{error}");
    // Bob's prompt and tool call take the upstream's last two; then even the local user
    // is refused by the upstream's own rate.
    assert!(
        within("a prompt", bench.prompt(Some("bob")))
            .await
            .unwrap()
            .is_ok()
    );
    assert!(
        within("a call", bench.call(Some("bob")))
            .await
            .unwrap()
            .is_ok()
    );
    refused(bench.read(None), "`rate` = 4/h").await;
    assert_eq!(bench.arrived(4).await.len(), 4);
    assert_eq!(bench.requests.load(Ordering::SeqCst), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_over_a_callers_share_complete_to_nothing_without_reaching_the_upstream() {
    let mut bench = bench(MountOptions::new("up").max_concurrent(4)).await;
    // Alice's two completions are held upstream; her third is over her share: it
    // completes to nothing, and is never sent.
    let held: Vec<_> = (0..2).map(|_| bench.complete(Some("alice"))).collect();
    assert_eq!(bench.arrived(2).await, ["complete", "complete"]);
    let third = within("alice's third", bench.complete(Some("alice")))
        .await
        .unwrap();
    assert!(third.is_empty(), "{third:?}");
    assert_eq!(bench.requests.load(Ordering::SeqCst), 2);
    // Bob's completion still reaches the upstream: the share is by the options' caller,
    // not the `someone-else` the request claimed.
    let bob = bench.complete(Some("bob"));
    assert_eq!(bench.arrived(1).await, ["complete"]);
    bench.release.add_permits(3);
    for handle in held.into_iter().chain([bob]) {
        assert_eq!(within("a completion", handle).await.unwrap(), ["released"]);
    }
    assert_eq!(bench.requests.load(Ordering::SeqCst), 3);
}
