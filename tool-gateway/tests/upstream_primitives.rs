//! Mounting an upstream's prompts, resources, resource templates and skills beside its
//! tools (the library upstream of `support/library.rs`, in process), and the attacks on
//! it: a resource URI that collides with ours, contents that name a URI outside the
//! resource's namespace, a prompt name that collides, huge lists, `resources/updated` for
//! URIs nobody subscribed to, a skill file that is not the one listed. No sleeps: every wait
//! has a generous deadline that fails the test.

#[path = "support/library.rs"]
mod library;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use library::{Library, SKILL_MD, connect, updated};
use toolwright_core::client::{
    ClientFuture, ClientPowers, ElicitationRequest, SampledMessage, SamplingRequest,
};
use toolwright_core::{ClientError, Elicitation, LogLevel};
use toolwright_core::{
    CompletionRequest, Prompt, PromptArguments, Resource, ResourceBody, ResourceRequest,
    ToolContext,
};
use toolwright_core::{Content, ToolCall};
use toolwright_gateway::upstream::{
    Fingerprint, MountOptions, MountUpstream, PrimitiveKind, SkipReason,
};
use toolwright_runtime::registry::{ChangeKind, Primitive};
use toolwright_runtime::{ApprovalDecision, Executor, ToolRegistry};

const DEADLINE: Duration = Duration::from_secs(60);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(DEADLINE, future).await {
        Ok(value) => value,
        Err(_) => panic!("{what}: not done within {DEADLINE:?}"),
    }
}

/// Reads `uri` as our server would: the registry resolves it, the resource reads it.
async fn read(registry: &ToolRegistry, uri: &str) -> Result<Vec<(String, String)>, String> {
    let (resource, variables) = registry
        .resolve_resource(uri)
        .ok_or_else(|| format!("{uri}: not ours"))?;
    let request = ResourceRequest {
        uri: uri.to_owned(),
        variables,
    };
    let contents = within(uri, resource.read(request, ToolContext::new()))
        .await
        .map_err(|e| e.to_string())?;
    Ok(contents
        .into_iter()
        .map(|c| {
            let body = match c.body {
                ResourceBody::Text(text) => text,
                ResourceBody::Blob(bytes) => format!("{} bytes", bytes.len()),
            };
            (c.uri, body)
        })
        .collect())
}

#[tokio::test]
async fn prompts_resources_templates_and_skills_are_mounted_in_the_namespace() {
    let (library, _events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let report = &mount.report().primitives;
    let mut added: Vec<(PrimitiveKind, &str)> = report
        .added
        .iter()
        .map(|p| (p.kind, p.name.as_str()))
        .collect();
    added.sort();
    assert_eq!(
        added,
        [
            (PrimitiveKind::Prompt, "lib_greet"),
            (PrimitiveKind::Resource, "lib+demo://escape"),
            (PrimitiveKind::Resource, "lib+demo://static/1"),
            (PrimitiveKind::Resource, "lib+demo://static/2"),
            (PrimitiveKind::Resource, "lib+file:///etc/hosts"),
            (PrimitiveKind::ResourceTemplate, "lib+demo://dynamic/{id}"),
            (PrimitiveKind::Skill, "skill://lib/pdf/SKILL.md"),
        ]
    );
    // `fetch-page` and `fetchPage` share a name: neither; no scheme: not mounted.
    let skipped: Vec<(&str, &SkipReason)> = report
        .skipped
        .iter()
        .map(|(_, s)| (s.upstream_name.as_str(), &s.reason))
        .collect();
    assert!(
        skipped
            .iter()
            .any(|(n, r)| *n == "fetch-page" && matches!(r, SkipReason::SameName { .. })),
        "{skipped:?}"
    );
    assert!(
        skipped
            .iter()
            .any(|(n, r)| *n == "fetchPage" && matches!(r, SkipReason::SameName { .. }))
    );
    assert!(
        skipped
            .iter()
            .any(|(n, r)| *n == "/relative/path" && matches!(r, SkipReason::UnusableUri))
    );

    // The prompt: its arguments, its description saying where it comes from.
    let greet: Prompt = registry.prompt("lib_greet").unwrap();
    let arguments: Vec<(&str, bool)> = greet
        .arguments()
        .iter()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(arguments, [("name", true), ("style", false)]);
    assert!(
        greet
            .description()
            .unwrap_or_default()
            .starts_with("[The prompt `greet` of the upstream MCP server `library`"),
        "{:?}",
        greet.description()
    );
    let mut arguments = PromptArguments::new();
    arguments.insert("name".into(), "Ada".into());
    let output = within("get", greet.get(arguments, ToolContext::new()))
        .await
        .unwrap();
    assert_eq!(output.messages.len(), 2);
    // The embedded resource is named in the namespace.
    let embedded = serde_json::to_value(&output.messages[1].content).unwrap();
    assert_eq!(embedded["uri"], "lib+demo://static/1", "{embedded}");

    // Reads, fixed and by the template.
    assert_eq!(
        read(&registry, "lib+demo://static/1").await.unwrap(),
        [("lib+demo://static/1".to_owned(), "one".to_owned())]
    );
    assert_eq!(
        read(&registry, "lib+demo://static/2").await.unwrap(),
        [("lib+demo://static/2".to_owned(), "3 bytes".to_owned())]
    );
    assert_eq!(
        read(&registry, "lib+demo://dynamic/42").await.unwrap(),
        [("lib+demo://dynamic/42".to_owned(), "dynamic 42".to_owned())]
    );
    // The upstream's own URIs are not ours.
    assert!(read(&registry, "demo://static/1").await.is_err());
    assert!(registry.resolve_resource("file:///etc/hosts").is_none());

    // The skill: its listing in the namespace, its files readable there.
    let skill = registry.skill("skill://lib/pdf/SKILL.md").unwrap();
    assert_eq!(skill.name, "pdf");
    let files: Vec<&str> = skill.files.iter().map(|f| f.uri.as_str()).collect();
    assert_eq!(
        files,
        ["skill://lib/pdf/SKILL.md", "skill://lib/pdf/forms.md"]
    );
    assert_eq!(
        read(&registry, "skill://lib/pdf/SKILL.md").await.unwrap()[0].1,
        SKILL_MD
    );
}

#[tokio::test]
async fn contents_naming_other_uris_stay_in_the_namespace() {
    let (library, _events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    // The upstream answers with `file:///etc/shadow` (one of our URIs, were it ours) and
    // another namespace's URI: both come back inside `lib`, never as ours or theirs.
    let contents = read(&registry, "lib+demo://escape").await.unwrap();
    let uris: Vec<&str> = contents.iter().map(|(u, _)| u.as_str()).collect();
    assert_eq!(uris, ["lib+file:///etc/shadow", "lib+other+demo://x"]);
}

#[tokio::test]
async fn a_skill_file_that_is_not_the_one_listed_is_refused() {
    let (library, _events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let error = read(&registry, "skill://lib/pdf/forms.md")
        .await
        .unwrap_err();
    assert!(error.contains("not the one it listed"), "{error}");
}

#[tokio::test]
async fn a_uri_or_prompt_name_of_ours_is_never_taken_over() {
    let (library, _events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    // Ours, registered first under the names the upstream's would get.
    registry
        .register_resource(
            Resource::builder("ours", "lib+demo://static/1")
                .handler(|_request: ResourceRequest, _ctx: ToolContext| async {
                    Ok::<_, toolwright_core::ToolError>("our text".to_owned())
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
        .register_prompt(
            Prompt::builder("lib_greet")
                .handler(|_arguments: PromptArguments, _ctx: ToolContext| async {
                    Ok::<_, toolwright_core::ToolError>("our prompt".to_owned())
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let report = &mount.report().primitives;
    for name in ["lib+demo://static/1", "lib_greet"] {
        assert!(
            report
                .skipped
                .iter()
                .any(|(_, s)| s.name.as_deref() == Some(name)
                    && s.reason == SkipReason::AlreadyRegistered),
            "{name}: {report:?}"
        );
        assert!(!report.added.iter().any(|p| p.name == name));
    }
    assert_eq!(
        read(&registry, "lib+demo://static/1").await.unwrap()[0].1,
        "our text"
    );
    // And a refresh leaves ours alone too.
    let again = within("refresh", mount.refresh()).await.unwrap();
    assert!(again.primitives.removed.is_empty(), "{again:?}");
    assert_eq!(
        read(&registry, "lib+demo://static/1").await.unwrap()[0].1,
        "our text"
    );
}

#[tokio::test]
async fn huge_lists_are_cut() {
    let (mut library, _events) = Library::new();
    library.extra_resources = 5_000;
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within(
        "mount",
        registry.mount(&upstream, MountOptions::new("lib").max_tools(100)),
    )
    .await
    .unwrap();
    let report = &mount.report().primitives;
    assert!(
        report
            .cuts
            .iter()
            .any(|(kind, _)| *kind == PrimitiveKind::Resource),
        "{report:?}"
    );
    let resources = mount
        .primitives()
        .into_iter()
        .filter(|p| p.kind == PrimitiveKind::Resource)
        .count();
    assert!(resources <= 100, "{resources}");
}

// A completion function is synchronous: the gateway's waits on a multi-threaded runtime.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_are_the_upstreams() {
    let (library, mut events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let greet = registry.prompt("lib_greet").unwrap();
    let request = CompletionRequest {
        argument: "style".into(),
        value: "f".into(),
        context: Default::default(),
        caller: None,
    };
    let completions = within("the completion", greet.complete(&request).unwrap()).await;
    assert_eq!(completions.values, ["formal", "friendly"]);
    // The upstream was asked about its own prompt's name.
    let seen = within("the upstream's event", events.recv()).await.unwrap();
    assert_eq!(seen, "complete prompt greet style=f");
}

#[tokio::test]
async fn updates_reach_subscribers_only() {
    let (library, mut events) = Library::new();
    let upstream = connect(library.clone()).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let mut changes = registry.subscribe_changes();
    // Nobody subscribed: the upstream's update is dropped.
    within("subscribe", mount.subscribe("lib+demo://static/2"))
        .await
        .unwrap();
    assert_eq!(
        within("the upstream's event", events.recv()).await.unwrap(),
        "subscribe demo://static/2"
    );
    updated(&library, "demo://static/1").await;
    updated(&library, "demo://static/2").await;
    // The first change is the subscribed one's: the other was dropped before it.
    let change = within("the update", changes.recv()).await.unwrap();
    assert_eq!(
        (change.kind, change.primitive, change.name.as_str()),
        (
            ChangeKind::Updated,
            Primitive::Resource,
            "lib+demo://static/2"
        )
    );
    // A URI outside the namespace cannot be subscribed to through the mount.
    assert!(mount.subscribe("demo://static/1").await.is_err());
    within("unsubscribe", mount.unsubscribe("lib+demo://static/2"))
        .await
        .unwrap();
    assert_eq!(
        within("the upstream's event", events.recv()).await.unwrap(),
        "unsubscribe demo://static/2"
    );
}

/// A client that records the log messages sent to it.
struct Logs(tokio::sync::mpsc::UnboundedSender<(LogLevel, String)>);

impl ClientPowers for Logs {
    fn log(&self, _tool: &str, level: LogLevel, message: &str) {
        let _ = self.0.send((level, message.to_owned()));
    }

    fn elicit(
        &self,
        _request: ElicitationRequest,
    ) -> ClientFuture<Result<Elicitation<serde_json::Value>, ClientError>> {
        Box::pin(async { Ok(Elicitation::Declined) })
    }

    fn sample(
        &self,
        _request: SamplingRequest,
    ) -> ClientFuture<Result<SampledMessage, ClientError>> {
        Box::pin(async {
            Err(ClientError::NotAvailable {
                what: "sampling",
                why: "none here".to_owned(),
            })
        })
    }
}

#[tokio::test]
async fn the_upstreams_log_during_a_read_reaches_the_readers_client_escaped() {
    let (library, _events) = Library::new();
    let logged = library.logged.clone();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let (sender, mut received) = tokio::sync::mpsc::unbounded_channel();
    let ctx =
        ToolContext::for_primitive("lib+demo://dynamic/logs").with_client(Arc::new(Logs(sender)));
    // The library logs while it reads `demo://dynamic/logs`: the log goes to the client of
    // the read it belongs to (and the read answers once the test has it).
    let (template, variables) = registry
        .resolve_resource("lib+demo://dynamic/logs")
        .unwrap();
    let mut request = ResourceRequest::new("lib+demo://dynamic/logs");
    request.variables = variables;
    let reading = tokio::spawn(async move { template.read(request, ctx).await });
    let (level, message) = within("the log", received.recv()).await.unwrap();
    logged.notify_one();
    let contents = within("read", reading).await.unwrap().unwrap();
    assert_eq!(contents[0].uri, "lib+demo://dynamic/logs");
    assert_eq!(level, LogLevel::Warning);
    assert_eq!(
        message,
        "[the upstream MCP server `library` (library)] reading \\u{1b}[31m logs"
    );
}

#[tokio::test]
async fn a_pinned_prompt_that_changed_is_disabled_and_a_change_is_reported() {
    let (library, _events) = Library::new();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let wrong = "ab".repeat(32).parse::<Fingerprint>().unwrap();
    let mount = within(
        "mount",
        registry.mount(
            &upstream,
            MountOptions::new("lib")
                .pin_prompt("greet", wrong)
                .pin_resource("demo://static/2", wrong),
        ),
    )
    .await
    .unwrap();
    let report = &mount.report().primitives;
    let pinned: Vec<&str> = report
        .changed
        .iter()
        .filter(|(_, c)| c.pinned && c.expected == wrong)
        .map(|(_, c)| c.name.as_str())
        .collect();
    assert_eq!(pinned, ["lib_greet", "lib+demo://static/2"]);
    assert!(!registry.is_prompt_enabled("lib_greet"));
    assert!(!registry.is_resource_enabled("lib+demo://static/2"));
    // Disabled, it is not read.
    assert!(read(&registry, "lib+demo://static/2").await.is_err());
    assert!(registry.is_resource_enabled("lib+demo://static/1"));

    // Unpinned, a definition that changes upstream is reported on the next refresh.
    let (library, _events) = Library::new();
    let prompts_now = library.prompts.clone();
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    prompts_now.lock().unwrap()[0].description = Some("Now says something else.".into());
    let again = within("refresh", mount.refresh()).await.unwrap();
    let changed: Vec<&str> = again
        .primitives
        .changed
        .iter()
        .map(|(_, c)| c.name.as_str())
        .collect();
    assert_eq!(changed, ["lib_greet"]);
    assert!(
        registry
            .prompt("lib_greet")
            .unwrap()
            .description()
            .unwrap()
            .contains("Now says something else.")
    );
}

#[tokio::test]
async fn a_prompt_list_change_refreshes_the_mount() {
    let (library, _events) = Library::new();
    let upstream = connect(library.clone()).await;
    let registry = Arc::new(ToolRegistry::new());
    let mount = Arc::new(
        within("mount", registry.mount(&upstream, MountOptions::new("lib")))
            .await
            .unwrap(),
    );
    let (reports, mut received) = tokio::sync::mpsc::unbounded_channel();
    let _following = mount.follow(move |report| {
        let _ = reports.send(report);
    });
    library
        .prompts
        .lock()
        .unwrap()
        .push(library::prompt("summarise", vec![]));
    let peer = library.peer.lock().unwrap().clone().unwrap();
    peer.notify_prompt_list_changed().await.unwrap();
    let report = within("the refresh", received.recv())
        .await
        .unwrap()
        .unwrap();
    let added: Vec<&str> = report
        .primitives
        .added
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(added, ["lib_summarise"]);
    assert!(registry.prompt("lib_summarise").is_some());
}

#[tokio::test]
async fn a_tools_resource_links_name_the_mounted_resources() {
    let (mut library, _events) = Library::new();
    library.tools = true;
    let upstream = connect(library).await;
    let registry = Arc::new(ToolRegistry::new());
    let _mount = within("mount", registry.mount(&upstream, MountOptions::new("lib")))
        .await
        .unwrap();
    let executor = Executor::builder(registry.clone())
        .approval(|_| async { ApprovalDecision::Approved })
        .build();
    let result = within(
        "the call",
        executor.execute(ToolCall::new("1", "lib_links", serde_json::json!({}))),
    )
    .await;
    assert!(result.success, "{result:?}");
    let uris: Vec<String> = result
        .blocks
        .iter()
        .filter_map(|block| match block {
            Content::ResourceLink(link) => Some(link.uri.clone()),
            Content::Resource(resource) => Some(resource.uri.clone()),
            _ => None,
        })
        .collect();
    // Readable through the gateway, never one of ours; one without a scheme stays as sent.
    assert_eq!(
        uris,
        ["lib+demo://static/1", "lib+file:///etc/shadow", "relative"]
    );
    assert!(registry.resolve_resource(&uris[0]).is_some());
}
