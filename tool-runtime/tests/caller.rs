//! Who made a call (`CallOptions::caller`): every tool sees the subject, only a tool built
//! with `receives_caller_token` holds the caller's token, the audit line names the caller,
//! and the token is in no `Debug` output nor the audit log.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use toolwright_core::{Caller, CallerToken, SafetyLevel, Tool, ToolCall};
use toolwright_runtime::executor::AuditLog;
use toolwright_runtime::{CallOptions, Executor, ToolRegistry};

const TOKEN: &str = "the-callers-bearer-token-0123456789";

/// What a tool saw of its caller: `subject|token` (`-` for none).
fn seen(ctx: &toolwright_core::ToolContext) -> String {
    match ctx.caller() {
        None => "-|-".to_owned(),
        Some(caller) => format!(
            "{}|{}",
            caller.subject(),
            caller.token().map_or("-", CallerToken::expose)
        ),
    }
}

#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn executor(audit: Shared) -> Executor {
    let registry = Arc::new(ToolRegistry::new());
    for (name, gets_token) in [("plain", false), ("as_caller", true)] {
        let mut builder = Tool::builder(name)
            .description("Says who calls.")
            .safety(SafetyLevel::Cautious);
        if gets_token {
            builder = builder.receives_caller_token();
        }
        registry
            .register(
                builder
                    .handler_with_context(|ctx, _: Map<String, Value>| async move { seen(&ctx) })
                    .build()
                    .unwrap(),
            )
            .unwrap();
    }
    Executor::builder(registry)
        .hook(AuditLog::new(audit))
        .build()
}

#[tokio::test]
async fn only_a_tool_that_asked_holds_the_callers_token() {
    let audit = Shared::default();
    let executor = executor(audit.clone());
    let alice = Caller::new("alice").with_token(CallerToken::new(TOKEN));
    let options = || CallOptions::new().caller(alice.clone());
    assert!(!format!("{:?}", options()).contains(TOKEN));

    let plain = executor
        .execute_with(ToolCall::new("1", "plain", json!({})), options())
        .await
        .result;
    assert_eq!(plain.content, "alice|-", "{plain:?}");
    let as_caller = executor
        .execute_with(ToolCall::new("2", "as_caller", json!({})), options())
        .await
        .result;
    assert_eq!(as_caller.content, format!("alice|{TOKEN}"));
    // A local call: no caller at all.
    let local = executor
        .execute(ToolCall::new("3", "as_caller", json!({})))
        .await;
    assert_eq!(local.content, "-|-");

    let log = String::from_utf8(audit.0.lock().unwrap().clone()).unwrap();
    let callers: Vec<Option<String>> = log
        .lines()
        .map(|line| {
            let line: Value = serde_json::from_str(line).unwrap();
            line["caller"].as_str().map(str::to_owned)
        })
        .collect();
    assert_eq!(
        callers,
        [Some("alice".to_owned()), Some("alice".to_owned()), None]
    );
    // The results hold the token (the tool returned it); the arguments and the rest of
    // the audit line never do.
    assert!(!log.contains(TOKEN), "{log}");
}

#[tokio::test]
async fn prompts_resources_and_completions_know_the_caller_but_not_its_token() {
    use toolwright_core::{
        Completions, Prompt, PromptOutput, Resource, ResourceBody, ResourceContents,
        ResourceRequest, ToolContext, ToolError,
    };
    use toolwright_runtime::executor::CompletionReference;

    let registry = Arc::new(ToolRegistry::new());
    let prompt = Prompt::builder("brief")
        .argument(toolwright_core::PromptArgument::new("topic"))
        .completion_async(
            "topic",
            |request: toolwright_core::CompletionRequest| async move {
                Completions {
                    values: vec![request.caller.unwrap_or_else(|| "nobody".to_owned())],
                    total: None,
                    has_more: false,
                }
            },
        )
        .handler(|_, ctx: ToolContext| async move {
            Ok::<_, ToolError>(PromptOutput {
                description: Some(seen(&ctx)),
                messages: Vec::new(),
            })
        })
        .build()
        .unwrap();
    registry.register_prompt(prompt).unwrap();
    let resource = Resource::builder("who", "who://me")
        .handler(|request: ResourceRequest, ctx: ToolContext| async move {
            Ok::<_, ToolError>(vec![ResourceContents {
                uri: request.uri,
                mime_type: None,
                body: ResourceBody::Text(seen(&ctx)),
            }])
        })
        .build()
        .unwrap();
    registry.register_resource(resource).unwrap();
    let executor = Executor::builder(registry).build();
    let alice = CallOptions::new().caller(Caller::new("alice").with_token(CallerToken::new(TOKEN)));

    let got = executor
        .get_prompt("brief", Default::default(), &alice)
        .await
        .unwrap();
    assert_eq!(got.description.as_deref(), Some("alice|-"));
    let read = executor.read_resource("who://me", &alice).await.unwrap();
    assert!(
        matches!(&read[0].body, ResourceBody::Text(text) if text == "alice|-"),
        "{read:?}"
    );
    // What a client claims in the request is replaced by the options' caller.
    let mut request = toolwright_core::CompletionRequest::new("topic", "");
    request.caller = Some("mallory".to_owned());
    let reference = CompletionReference::Prompt("brief".to_owned());
    let completed = executor
        .complete(&reference, &request, &alice)
        .await
        .unwrap();
    assert_eq!(completed.values, ["alice"]);
    let local = executor
        .complete(&reference, &request, &CallOptions::new())
        .await
        .unwrap();
    assert_eq!(local.values, ["nobody"]);
}
