// Prompts and resources through both crates, sync and async, with the context, parsed
// arguments, `Result` returns, completions and `#[tool_set]` methods.
use std::sync::Arc;

use toolwright::model::{
    CompletionRequest, Completions, Json, PromptMessage, ResourceBody, ResourceRequest, ToolState,
};
use toolwright::{ToolContext, ToolError, prompt, resource, tool, tool_set};

fn languages(request: &CompletionRequest) -> Completions {
    Completions::matching(["rust", "python"], &request.value)
}

/// Review code.
#[prompt(title = "Review", version = "1.0.0", tags("review"), complete(language = languages))]
async fn review(
    ctx: &ToolContext,
    /// The language
    language: String,
    /// How many points at most
    #[arg(rename = "max")]
    max_points: Option<u32>,
) -> Result<Vec<PromptMessage>, String> {
    let _ = ctx.tool_name();
    Ok(vec![PromptMessage::user(format!(
        "Review this {language}, {} points.",
        max_points.unwrap_or(3)
    ))])
}

/// A greeting.
#[toolwright_core::prompt(name = "greet-v2")]
fn greet() -> &'static str {
    "Hello!"
}

#[derive(toolwright::serde::Serialize)]
#[serde(crate = "toolwright::serde")]
struct Stats {
    notes: u32,
}

/// Statistics.
#[resource(uri = "notes://stats", safety = "cautious")]
fn stats() -> Json<Stats> {
    Json(Stats { notes: 2 })
}

/// A file of a folder.
#[resource(uri = "files://{folder}/{+path}", mime_type = "text/plain")]
async fn file(folder: String, path: String, ctx: &ToolContext) -> Result<Vec<u8>, ToolError> {
    let _ = ctx;
    Ok(format!("{folder}:{path}").into_bytes())
}

/// Say hi.
#[tool]
fn hi() -> &'static str {
    "hi"
}

struct Team {
    name: String,
}

#[tool_set]
impl Team {
    /// The team's review prompt.
    #[prompt]
    fn team_review(&self, topic: String) -> String {
        format!("{} reviews {topic}", self.name)
    }

    /// The team's page.
    #[resource(uri = "team://{id}")]
    async fn team_page(&self, id: u32) -> String {
        format!("{} #{id}", self.name)
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = toolwright::register_all_tools().unwrap();
    let review = registry.prompt("review").unwrap();
    assert_eq!(review.arguments()[1].name, "max");
    let args = [
        ("language".to_owned(), "rust".to_owned()),
        ("max".to_owned(), "5".to_owned()),
    ]
    .into();
    let out = review.get(args, ToolContext::new()).await.unwrap();
    assert_eq!(
        out.messages[0].content.as_text(),
        Some("Review this rust, 5 points.")
    );
    let bad = [
        ("language".to_owned(), "rust".to_owned()),
        ("max".to_owned(), "many".to_owned()),
    ]
    .into();
    let err = review.get(bad, ToolContext::new()).await.unwrap_err();
    assert!(err.to_string().contains("`max`"), "{err}");
    assert!(registry.prompt("greet-v2").is_some());

    let (file, vars) = registry.resolve_resource("files://a/b/c.txt").unwrap();
    let read = file
        .read(
            ResourceRequest { uri: "files://a/b/c.txt".into(), variables: vars },
            ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(read[0].body, ResourceBody::Blob(b"a:b/c.txt".to_vec()));
    assert_eq!(read[0].mime_type.as_deref(), Some("text/plain"));
    let (stats, _) = registry.resolve_resource("notes://stats").unwrap();
    let read = stats
        .read(ResourceRequest::new("notes://stats"), ToolContext::new())
        .await
        .unwrap();
    assert_eq!(read[0].mime_type.as_deref(), Some("application/json"));

    // The set's methods find their instance in the context's state.
    let mut state = ToolState::new();
    state.insert_shared(Arc::new(Team { name: "core".into() }));
    let ctx = ToolContext::new().with_state(state);
    let team_review = registry.prompt("team_review").unwrap();
    let out = team_review
        .get([("topic".to_owned(), "docs".to_owned())].into(), ctx.clone())
        .await
        .unwrap();
    assert_eq!(out.messages[0].content.as_text(), Some("core reviews docs"));
    let (page, vars) = registry.resolve_resource("team://7").unwrap();
    let read = page
        .read(ResourceRequest { uri: "team://7".into(), variables: vars }, ctx)
        .await
        .unwrap();
    assert_eq!(read[0].body, ResourceBody::Text("core #7".into()));
    assert!(registry.get("hi").is_some());
}
