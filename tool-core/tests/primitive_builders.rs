//! Prompts and resources defined at run time pass the checks `#[prompt]` and `#[resource]`
//! make at compile time; each refusal names the definition and says what to fix.

use toolwright_core::{
    CompletionRequest, Completions, Json, Prompt, PromptArgument, Resource, ResourceBody,
    ResourceRequest, SafetyLevel, ToolContext, ToolDefinitionError, ToolError,
};

fn none(_: &CompletionRequest) -> Completions {
    Completions::none()
}

fn reason(err: ToolDefinitionError) -> String {
    match err {
        ToolDefinitionError::InvalidPrimitive { reason, .. } => reason,
        other => panic!("expected InvalidPrimitive, got {other:?}"),
    }
}

#[test]
fn prompt_builders_refuse_what_the_macro_refuses() {
    let base = || Prompt::builder("review").handler(|_, _| async { Ok("hi") });
    let bad_name = Prompt::builder("re view")
        .handler(|_, _| async { Ok("") })
        .build()
        .unwrap_err();
    assert!(reason(bad_name).contains("not a valid prompt name"));
    let long = "a".repeat(129);
    assert!(
        Prompt::builder(long)
            .handler(|_, _| async { Ok("") })
            .build()
            .is_err()
    );
    let twice = base()
        .argument(PromptArgument::new("code"))
        .argument(PromptArgument::new("code"))
        .build()
        .unwrap_err();
    assert!(reason(twice).contains("`code` is given twice"));
    let stray = base()
        .argument(PromptArgument::new("language"))
        .completion("langauge", none)
        .build()
        .unwrap_err();
    assert!(reason(stray).contains("did you mean `language`?"));
    let no_handler = Prompt::builder("review").build().unwrap_err();
    assert!(reason(no_handler).contains("no handler"));
    assert!(reason(base().tags([""]).build().unwrap_err()).contains("empty tag"));
    let ok = base()
        .title("Review")
        .version("1")
        .safety(SafetyLevel::Cautious)
        .build()
        .unwrap();
    assert_eq!(
        (ok.title(), ok.version(), ok.safety()),
        (Some("Review"), Some("1"), SafetyLevel::Cautious)
    );
}

#[test]
fn resource_builders_check_uris_templates_and_completions() {
    let build = |uri: &str| {
        Resource::builder("r", uri)
            .handler(|_, _| async { Ok("x") })
            .build()
    };
    assert!(build("notes://{id}").unwrap().uri().is_template());
    assert!(!build("notes://all").unwrap().uri().is_template());
    assert!(reason(build("/notes/all").unwrap_err()).contains("scheme"));
    assert!(reason(build("notes://{id").unwrap_err()).contains("has no `}`"));
    assert!(reason(build("notes://{?q}").unwrap_err()).contains("not supported"));
    let stray = Resource::builder("r", "notes://{id}")
        .completion("idd", none)
        .handler(|_, _| async { Ok("x") })
        .build()
        .unwrap_err();
    assert!(reason(stray).contains("did you mean `id`?"));
    let unnamed = Resource::builder("", "notes://a")
        .handler(|_, _| async { Ok("x") })
        .build()
        .unwrap_err();
    assert!(reason(unnamed).contains("name"));
    let no_handler = Resource::builder("r", "notes://a").build().unwrap_err();
    assert!(reason(no_handler).contains("no handler"));
}

#[tokio::test]
async fn contents_take_the_resources_mime_type_unless_they_have_their_own() {
    let bytes = Resource::builder("r", "notes://a")
        .mime_type("text/markdown")
        .handler(|_, _| async { Ok(vec![1_u8, 2]) })
        .build()
        .unwrap();
    let read = bytes
        .read(ResourceRequest::new("notes://a"), ToolContext::new())
        .await
        .unwrap();
    assert_eq!(read[0].body, ResourceBody::Blob(vec![1, 2]));
    assert_eq!(read[0].mime_type.as_deref(), Some("text/markdown"));
    let json = Resource::builder("r", "notes://b")
        .mime_type("text/plain")
        .handler(|_, _| async { Ok(Json(vec![1, 2])) })
        .build()
        .unwrap();
    let read = json
        .read(ResourceRequest::new("notes://b"), ToolContext::new())
        .await
        .unwrap();
    assert_eq!(read[0].mime_type.as_deref(), Some("application/json"));
    let failing = Resource::builder("r", "notes://{id}")
        .handler(|req, _| async move { Err::<String, _>(ToolError::resource_not_found(req.uri)) })
        .build()
        .unwrap();
    let err = failing
        .read(ResourceRequest::new("notes://9"), ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.is_resource_not_found());
}

#[test]
fn completions_are_capped_at_a_hundred() {
    let many = Prompt::builder("p")
        .argument(PromptArgument::new("n"))
        .completion("n", |_| Completions {
            values: (0..500).map(|i| i.to_string()).collect(),
            total: None,
            has_more: false,
        })
        .handler(|_, _| async { Ok("") })
        .build()
        .unwrap();
    let done = many.complete(&CompletionRequest::new("n", "")).unwrap();
    assert_eq!(
        (done.values.len(), done.total, done.has_more),
        (100, Some(500), true)
    );
}
