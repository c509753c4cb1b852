//! The resources, prompts and completions the suite's scenarios read, written with
//! `#[resource]` and `#[prompt]` and served by the `McpServer` like the tools, the prompt
//! that asks its caller first (`input-required-result-non-tool-request`) included.

use toolwright_core::{
    CompletionRequest, Completions, Content, EmbeddedResource, PromptMessage, prompt, resource,
};

use super::*;

pub(crate) fn parse<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|error| McpError::internal_error(error.to_string(), None))
}

// ---- resources ----

/// A static text resource
#[resource(
    uri = "test://static-text",
    name = "static-text",
    mime_type = "text/plain"
)]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A static binary resource (a PNG image)
#[resource(
    uri = "test://static-binary",
    name = "static-binary",
    mime_type = "image/png"
)]
fn static_binary() -> Vec<u8> {
    RED_PIXEL_PNG.to_vec()
}

/// A resource clients may subscribe to
#[resource(
    uri = "test://watched-resource",
    name = "watched-resource",
    mime_type = "text/plain"
)]
fn watched_resource() -> &'static str {
    "The watched resource's content."
}

/// Data for an id, from a template
#[resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    mime_type = "application/json",
    complete(id = ids)
)]
fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

fn ids(request: &CompletionRequest) -> Completions {
    Completions::matching(["1", "12", "123"], &request.value)
}

// ---- prompts ----

/// What `completion/complete` offers for the prompts' arguments.
fn words(request: &CompletionRequest) -> Completions {
    Completions::matching(
        ["paris", "park", "party", "test", "testing"],
        &request.value,
    )
}

/// A simple prompt without arguments
#[prompt]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// A prompt with two arguments
#[prompt(complete(arg1 = words, arg2 = words))]
fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// A prompt that embeds a resource
#[prompt]
fn test_prompt_with_embedded_resource(
    /// URI of the resource to embed
    #[arg(rename = "resourceUri")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(EmbeddedResource::text(
            resource_uri,
            "Embedded resource content for testing.",
        )),
        PromptMessage::user("Please process the embedded resource above."),
    ]
}

/// A prompt with an image
#[prompt]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(Content::Image(Image::png(RED_PIXEL_PNG))),
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// The context the user gives a prompt.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct UserContext {
    /// The context the prompt should use
    context: String,
}

/// A prompt that asks the user for its context first: a 2026-07-28 client gets the question
/// in the result (key `user_context`) and repeats the request with the answer (scenario
/// `input-required-result-non-tool-request`); a client of the handshake era is asked
/// through its session.
#[prompt]
async fn test_input_required_result_prompt(ctx: &ToolContext) -> Result<String, ToolError> {
    let question =
        Ask::form::<UserContext>("What context should the prompt use?").key("user_context");
    let context = match ctx.ask(question).await?.form::<UserContext>()? {
        Elicitation::Accepted(UserContext { context }) => context,
        other => format!("(none: {})", describe(other)),
    };
    Ok(format!("Answer with this context in mind: {context}"))
}

/// The prompt `test_trigger_prompt_change` adds and removes.
const CHANGING_PROMPT: &str = "test_changing_prompt";

/// Changes the prompt list: adds a prompt, or removes it if there (check
/// `sep-2575-server-sends-prompts-list-changed-on-subscription`: a `subscriptions/listen`
/// stream that asked for prompt list changes hears of it).
#[tool]
pub(crate) fn test_trigger_prompt_change(
    #[state] managed: &ManagedRegistry,
) -> Result<String, ToolError> {
    let registry = &managed.0;
    if registry.remove_prompt(CHANGING_PROMPT).is_some() {
        return Ok(format!("removed `{CHANGING_PROMPT}`"));
    }
    let prompt = toolwright_core::Prompt::builder(CHANGING_PROMPT)
        .description("A prompt test_trigger_prompt_change adds and removes")
        .handler(|_, _| async { Ok("changed") })
        .build()
        .map_err(|error| ToolError::new(error.to_string()))?;
    registry
        .register_prompt(prompt)
        .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(format!("added `{CHANGING_PROMPT}`"))
}
