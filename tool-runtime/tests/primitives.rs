//! Prompts, resource reads and completions through the executor's policy: the ceilings hide,
//! a dangerous read needs a yes, a missing argument is named, and a handler's panic, error
//! or hang comes back as a typed `PrimitiveError`, never out of the executor.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use toolwright_core::{
    CompletionRequest, Completions, Prompt, PromptArgument, Resource, ResourceBody,
    ResourceRequest, SafetyLevel, ToolError,
};
use toolwright_runtime::executor::{CompletionReference, PrimitiveError};
use toolwright_runtime::{
    ApprovalDecision, ApprovalRequest, CallOptions, Executor, ToolFilter, ToolRegistry,
};

fn text_resource(name: &str, uri: &str, safety: SafetyLevel, text: &'static str) -> Resource {
    Resource::builder(name, uri)
        .safety(safety)
        .handler(move |_: ResourceRequest, _| async move { Ok::<_, ToolError>(text) })
        .build()
        .unwrap()
}

fn registry() -> Arc<ToolRegistry> {
    let registry = ToolRegistry::new();
    registry
        .register_resource(text_resource(
            "open",
            "docs://open",
            SafetyLevel::Safe,
            "open",
        ))
        .unwrap();
    registry
        .register_resource(text_resource(
            "careful",
            "docs://careful",
            SafetyLevel::Cautious,
            "careful",
        ))
        .unwrap();
    registry
        .register_resource(text_resource(
            "costly",
            "docs://costly",
            SafetyLevel::Dangerous,
            "costly",
        ))
        .unwrap();
    registry
        .register_resource(
            Resource::builder("note", "notes://{id}")
                .handler(|request: ResourceRequest, _| async move {
                    match request.variable("id")? {
                        "boom" => panic!("a resource handler that panics"),
                        "gone" => Err(ToolError::resource_not_found(request.uri.clone())),
                        "slow" => {
                            std::future::pending::<()>().await;
                            Ok(String::new())
                        }
                        id => Ok(format!("note {id}")),
                    }
                })
                .completion("id", |request: &CompletionRequest| {
                    if request.value == "panic" {
                        panic!("a completion that panics");
                    }
                    Completions::matching(["1", "12"], &request.value)
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
        .register_prompt(
            Prompt::builder("greet")
                .argument(PromptArgument::new("name").required(true))
                .handler(|arguments, _| async move {
                    Ok::<_, ToolError>(format!("hello {}", arguments["name"]))
                })
                .completion("name", |request: &CompletionRequest| {
                    Completions::matching(["ada", "alan"], &request.value)
                })
                .build()
                .unwrap(),
        )
        .unwrap();
    registry
        .register_prompt(
            Prompt::builder("audit")
                .safety(SafetyLevel::Cautious)
                .handler(|_, _| async { Ok::<_, ToolError>("audit") })
                .build()
                .unwrap(),
        )
        .unwrap();
    Arc::new(registry)
}

fn text(read: &[toolwright_core::ResourceContents]) -> &str {
    match &read[0].body {
        ResourceBody::Text(text) => text,
        ResourceBody::Blob(_) => panic!("not text"),
    }
}

#[tokio::test]
async fn a_ceiling_hides_what_is_above_it_in_lists_reads_gets_and_completions() {
    let executor = Executor::builder(registry())
        .max_safety(SafetyLevel::Cautious)
        .build();
    let safe_caller = CallOptions::new().max_safety(SafetyLevel::Safe);

    let uris = |resources: Vec<Resource>| -> Vec<String> {
        resources
            .iter()
            .map(|r| r.uri().as_str().to_owned())
            .collect()
    };
    // The executor's ceiling (cautious) hides the dangerous one from everyone.
    assert_eq!(
        uris(executor.available_resources(&CallOptions::new())),
        ["docs://careful", "docs://open"]
    );
    // The caller's (safe) hides the cautious one too.
    assert_eq!(
        uris(executor.available_resources(&safe_caller)),
        ["docs://open"]
    );
    let read = executor.read_resource("docs://careful", &safe_caller).await;
    assert_eq!(
        read,
        Err(PrimitiveError::ResourceNotFound {
            uri: "docs://careful".into()
        })
    );
    assert!(
        executor
            .read_resource("docs://costly", &CallOptions::new())
            .await
            .is_err()
    );
    assert!(!executor.may_read_resource("docs://careful", &safe_caller));
    assert!(executor.may_read_resource("docs://careful", &CallOptions::new()));

    let names: Vec<String> = executor
        .available_prompts(&safe_caller)
        .iter()
        .map(|p| p.name().to_owned())
        .collect();
    assert_eq!(names, ["greet"]);
    assert!(matches!(
        executor
            .get_prompt("audit", Default::default(), &safe_caller)
            .await,
        Err(PrimitiveError::UnknownPrompt { .. })
    ));
    // A prompt the caller may not see completes to nothing, as an unknown one does.
    let completed = executor
        .complete(
            &CompletionReference::Prompt("audit".into()),
            &CompletionRequest::new("x", ""),
            &safe_caller,
        )
        .await
        .unwrap();
    assert!(completed.values.is_empty());

    // Not offered for this request: no resource either.
    let offered = CallOptions::new().allowed_tools(ToolFilter::new().names(["note"]));
    assert!(
        executor
            .read_resource("docs://open", &offered)
            .await
            .is_err()
    );
    assert_eq!(
        text(&executor.read_resource("notes://3", &offered).await.unwrap()),
        "note 3"
    );
}

#[tokio::test]
async fn a_dangerous_read_needs_a_yes() {
    let asked = Arc::new(AtomicUsize::new(0));
    let no_handler = Executor::builder(registry()).build();
    let refused = no_handler
        .read_resource("docs://costly", &CallOptions::new())
        .await;
    assert!(
        matches!(&refused, Err(PrimitiveError::Denied(why)) if why.contains("approval")),
        "{refused:?}"
    );

    let counted = Arc::clone(&asked);
    let yes = Executor::builder(registry())
        .approval(move |request: ApprovalRequest| {
            counted.fetch_add(1, Ordering::SeqCst);
            assert_eq!(request.safety, SafetyLevel::Dangerous);
            async { ApprovalDecision::Approved }
        })
        .build();
    let read = yes
        .read_resource("docs://costly", &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(text(&read), "costly");
    // A safe read asks nobody.
    yes.read_resource("docs://open", &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1);

    let no = Executor::builder(registry())
        .approval(|_: ApprovalRequest| async {
            ApprovalDecision::Denied {
                reason: "not today".into(),
            }
        })
        .build();
    let denied = no.read_resource("docs://costly", &CallOptions::new()).await;
    assert!(
        matches!(&denied, Err(PrimitiveError::Denied(why)) if why.contains("not today")),
        "{denied:?}"
    );
}

#[tokio::test]
async fn failures_come_back_typed() {
    // A generous timeout: a panic's backtrace alone may take long on a busy machine.
    let executor = Executor::builder(registry())
        .timeout(Duration::from_secs(120))
        .build();
    let options = CallOptions::new();
    assert_eq!(
        text(&executor.read_resource("notes://7", &options).await.unwrap()),
        "note 7"
    );
    let panicked = executor.read_resource("notes://boom", &options).await;
    assert!(
        matches!(panicked, Err(PrimitiveError::Failed(_))),
        "{panicked:?}"
    );
    let gone = executor.read_resource("notes://gone", &options).await;
    assert_eq!(
        gone,
        Err(PrimitiveError::ResourceNotFound {
            uri: "notes://gone".into()
        })
    );
    // A handler that never returns: the timeout answers (it never resolves, so any
    // deadline fails it; the test's own wait is generous).
    let impatient = Executor::builder(registry())
        .timeout(Duration::from_millis(100))
        .build();
    let hung = tokio::time::timeout(
        Duration::from_secs(120),
        impatient.read_resource("notes://slow", &options),
    )
    .await
    .expect("the executor's timeout answers");
    assert!(matches!(hung, Err(PrimitiveError::TimedOut(_))), "{hung:?}");
    // Cancelled: answers at once.
    let token = toolwright_core::CancellationToken::new();
    token.cancel();
    let cancelled = executor
        .read_resource("notes://slow", &CallOptions::new().cancellation(token))
        .await;
    assert!(
        matches!(cancelled, Err(PrimitiveError::Cancelled(_))),
        "{cancelled:?}"
    );
    // A template's variable never holds a `/`, `..` or an encoded slash.
    for uri in [
        "notes://a/b",
        "notes://..",
        "notes://a%2Fb",
        "notes://%2e%2e",
    ] {
        assert!(
            matches!(
                executor.read_resource(uri, &options).await,
                Err(PrimitiveError::ResourceNotFound { .. })
            ),
            "{uri}"
        );
    }

    // A missing argument, an unknown one: named, before the prompt runs.
    let missing = executor
        .get_prompt("greet", Default::default(), &options)
        .await;
    assert!(
        matches!(&missing, Err(PrimitiveError::InvalidArgument { argument: Some(a), .. }) if a == "name"),
        "{missing:?}"
    );
    let extra = [
        ("name".to_owned(), "ada".to_owned()),
        ("nmae".to_owned(), "x".to_owned()),
    ]
    .into();
    let unknown = executor.get_prompt("greet", extra, &options).await;
    assert!(
        matches!(&unknown, Err(PrimitiveError::InvalidArgument { argument: Some(a), .. }) if a == "nmae"),
        "{unknown:?}"
    );
    let got = executor
        .get_prompt(
            "greet",
            [("name".to_owned(), "ada".to_owned())].into(),
            &options,
        )
        .await
        .unwrap();
    assert_eq!(got.messages[0].content.as_text(), Some("hello ada"));

    let completed = executor
        .complete(
            &CompletionReference::Resource("notes://{id}".into()),
            &CompletionRequest::new("id", "1"),
            &options,
        )
        .await
        .unwrap();
    assert_eq!(completed.values, ["1", "12"]);
    let crashed = executor
        .complete(
            &CompletionReference::Resource("notes://{id}".into()),
            &CompletionRequest::new("id", "panic"),
            &options,
        )
        .await;
    assert!(
        matches!(crashed, Err(PrimitiveError::Failed(_))),
        "{crashed:?}"
    );
}
