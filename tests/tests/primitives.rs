//! Prompts and resources from several crates collected at link time into one registry
//! (issue 39): the fixture `notes-primitives` (named only) and this test crate; their
//! arguments, completions, templates, filters, the set's methods and snapshots.

use std::sync::Arc;

use toolwright::model::{
    CompletionRequest, Prompt, ResourceBody, ResourceContents, ResourceRequest, SafetyLevel,
    ToolState,
};
use toolwright::runtime::ToolFilter;
use toolwright::runtime::registry::RegistrySnapshot;
use toolwright::{ToolContext, ToolError, ToolRegistry, prompt, register_all_tools, resource};

use notes_primitives as _;

/// Say hello to someone (defined in the test crate).
#[prompt(name = "say-hello")]
fn say_hello(name: String) -> String {
    format!("Hello, {name}!")
}

/// The test crate's readme.
#[resource(uri = "test://readme")]
fn readme() -> &'static str {
    "read me"
}

fn registry() -> ToolRegistry {
    register_all_tools().unwrap()
}

fn names(prompts: &[Prompt]) -> Vec<&str> {
    prompts.iter().map(Prompt::name).collect()
}

fn args<const N: usize>(pairs: [(&str, &str); N]) -> toolwright::model::PromptArguments {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

async fn read(
    registry: &ToolRegistry,
    uri: &str,
    ctx: ToolContext,
) -> Result<Vec<ResourceContents>, ToolError> {
    let Some((resource, variables)) = registry.resolve_resource(uri) else {
        return Err(ToolError::resource_not_found(uri));
    };
    resource
        .read(
            ResourceRequest {
                uri: uri.to_owned(),
                variables,
            },
            ctx,
        )
        .await
}

#[test]
fn prompts_and_resources_of_every_linked_crate_are_collected_sorted() {
    let registry = registry();
    let all = ToolFilter::new();
    assert_eq!(
        names(&registry.prompts(&all)),
        ["greet_owner", "say-hello", "summarize", "wipe_notes"]
    );
    let fixed: Vec<String> = registry
        .resources(&all)
        .iter()
        .map(|r| r.uri().to_string())
        .collect();
    assert_eq!(fixed, ["notes://index", "notes://owner", "test://readme"]);
    let templates: Vec<String> = registry
        .resource_templates(&all)
        .iter()
        .map(|r| r.uri().to_string())
        .collect();
    assert_eq!(templates, ["notes://{id}", "notes://{id}/files/{+path}"]);
    let summarize = registry.prompt("summarize").unwrap();
    assert_eq!(summarize.source().crate_name, "notes-primitives");
    assert_eq!(
        summarize.arguments()[0].description.as_deref(),
        Some("The note's number")
    );
    assert!(summarize.arguments()[0].required && !summarize.arguments()[1].required);
    // Registering again changes nothing.
    let mut again = registry;
    let generation = again.generation();
    again.register_all().unwrap();
    assert_eq!(again.generation(), generation);
}

#[tokio::test]
async fn prompts_parse_their_arguments_and_complete() {
    let registry = registry();
    let summarize = registry.prompt("summarize").unwrap();
    let out = summarize
        .get(args([("id", "2"), ("words", "10")]), ToolContext::new())
        .await
        .unwrap();
    assert_eq!(
        out.messages[0].content.as_text(),
        Some("Summarize note 2 in 10 words.")
    );
    let err = summarize
        .get(args([("id", "two")]), ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("`id`") && err.to_string().contains("u32"),
        "{err}"
    );
    let err = summarize
        .get(args([]), ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("needs the argument `id`"), "{err}");
    let err = summarize
        .get(args([("id", "1"), ("wrods", "3")]), ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("did you mean `words`?"), "{err}");
    let done = summarize
        .complete(&CompletionRequest::new("id", "1"))
        .unwrap();
    assert_eq!(done.values, ["1", "10"]);
    assert!(
        summarize
            .complete(&CompletionRequest::new("words", ""))
            .is_none()
    );
    let hello = registry.prompt("say-hello").unwrap();
    let out = hello
        .get(args([("name", "Ada")]), ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out.messages[0].content.as_text(), Some("Hello, Ada!"));
}

#[tokio::test]
async fn uris_resolve_fixed_first_then_templates_and_nothing_escapes() {
    let registry = registry();
    // `notes://index` is a fixed resource, though `notes://{id}` would match it too.
    let index = read(&registry, "notes://index", ToolContext::new())
        .await
        .unwrap();
    assert_eq!(index[0].body, ResourceBody::Text("[1,2,10]".into()));
    assert_eq!(index[0].mime_type.as_deref(), Some("application/json"));
    let note = read(&registry, "notes://10", ToolContext::new())
        .await
        .unwrap();
    assert_eq!(note[0].body, ResourceBody::Text("note 10".into()));
    assert_eq!(note[0].mime_type.as_deref(), Some("text/plain"));
    let missing = read(&registry, "notes://3", ToolContext::new())
        .await
        .unwrap_err();
    assert!(missing.is_resource_not_found(), "{missing:?}");
    let file = read(&registry, "notes://1/files/a/b.txt", ToolContext::new())
        .await
        .unwrap();
    assert_eq!(file[0].body, ResourceBody::Blob(b"1:a/b.txt".to_vec()));
    for evil in [
        "notes://..",
        "notes://%2e%2e",
        "notes://1%2F2",
        "notes://1/files/../../etc/passwd",
        "notes://1/files/a/%2E%2E/b",
        "notes://1/files/",
        "notes://1/files//etc",
        "notes://",
        "other://1",
    ] {
        assert!(registry.resolve_resource(evil).is_none(), "{evil} resolved");
    }
    // A value that is not the parameter's type reads as an error naming it.
    let err = read(&registry, "notes://abc", ToolContext::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("`id`"), "{err}");
}

#[test]
fn filters_apply_the_ceiling_tags_and_names_and_disabled_entries_hide() {
    let registry = registry();
    let safe = ToolFilter::new().max_safety(SafetyLevel::Safe);
    assert!(!names(&registry.prompts(&safe)).contains(&"wipe_notes"));
    assert_eq!(
        names(&registry.prompts(&ToolFilter::new().tags(["notes"]))),
        ["summarize"]
    );
    // Prompts have no categories: a category filter does not hide them.
    assert_eq!(
        registry
            .prompts(&ToolFilter::new().categories(["weather"]))
            .len(),
        4
    );
    let files = registry.resource_templates(&ToolFilter::new().tags(["files"]));
    assert_eq!(files.len(), 1);
    registry
        .set_resource_enabled("notes://index", false)
        .unwrap();
    // Disabled: the template answers for the URI now, and fails on a non-number.
    let (resolved, vars) = registry.resolve_resource("notes://index").unwrap();
    assert_eq!((resolved.name(), vars.get("id")), ("note", Some("index")));
    registry
        .set_resource_enabled("notes://{id}", false)
        .unwrap();
    assert!(registry.resolve_resource("notes://index").is_none());
    let err = registry.set_prompt_enabled("sumarize", false).unwrap_err();
    assert!(
        err.to_string().contains("did you mean `summarize`?"),
        "{err}"
    );
}

#[tokio::test]
async fn methods_of_a_set_read_their_instance_from_the_state() {
    let registry = registry();
    let greet = registry.prompt("greet_owner").unwrap();
    let err = greet.get(args([]), ToolContext::new()).await.unwrap_err();
    assert!(err.to_string().contains("Notebook"), "{err}");
    let mut state = ToolState::new();
    state.insert_shared(Arc::new(notes_primitives::Notebook {
        owner: "Ada".into(),
    }));
    let ctx = ToolContext::for_primitive("greet_owner").with_state(state);
    let out = greet.get(args([]), ctx.clone()).await.unwrap();
    assert_eq!(out.messages[0].content.as_text(), Some("Hello, Ada."));
    let owner = read(&registry, "notes://owner", ctx).await.unwrap();
    assert_eq!(owner[0].body, ResourceBody::Text("Ada".into()));
}

#[test]
fn snapshots_carry_the_enabled_state_of_prompts_and_resources() {
    let before = registry();
    before.set_prompt_enabled("wipe_notes", false).unwrap();
    before.set_resource_enabled("notes://{id}", false).unwrap();
    let json = serde_json::to_string(&before.snapshot()).unwrap();
    let saved: RegistrySnapshot = serde_json::from_str(&json).unwrap();
    let after = registry();
    let report = after.apply_state(&saved);
    assert!(report.unknown_primitives.is_empty(), "{report:?}");
    assert!(!after.is_prompt_enabled("wipe_notes"));
    assert!(after.is_prompt_enabled("summarize"));
    assert!(!after.is_resource_enabled("notes://{id}"));
    // A snapshot from before prompts existed still loads.
    let old: RegistrySnapshot = serde_json::from_str(r#"{"tools": []}"#).unwrap();
    assert!(old.prompts.is_empty() && old.resources.is_empty());
}

#[tokio::test]
async fn register_set_binds_the_sets_prompts_and_resources_to_its_instance() {
    use toolwright::model::ToolSet as _;
    let registry = registry();
    registry.set_prompt_enabled("greet_owner", false).unwrap();
    let notebook = Arc::new(notes_primitives::Notebook {
        owner: "Grace".into(),
    });
    registry.register_set(Arc::clone(&notebook)).unwrap();
    // Bound: no state needed; the application's choice (disabled) is kept.
    assert!(!registry.is_prompt_enabled("greet_owner"));
    let greet = registry.prompt("greet_owner").unwrap();
    let out = greet.get(args([]), ToolContext::new()).await.unwrap();
    assert_eq!(out.messages[0].content.as_text(), Some("Hello, Grace."));
    let owner = read(&registry, "notes://owner", ToolContext::new())
        .await
        .unwrap();
    assert_eq!(owner[0].body, ResourceBody::Text("Grace".into()));
    let prompts = notes_primitives::Notebook::prompts(&notebook);
    assert_eq!(names(&prompts), ["greet_owner"]);
    assert_eq!(notes_primitives::Notebook::resources(&notebook).len(), 1);
}
