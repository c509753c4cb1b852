//! The resources, prompts and completions the suite's scenarios read, written with
//! `#[resource]` and `#[prompt]` and served by the `McpServer` like the tools. One prompt
//! stays hand-written in `main.rs`'s handler: the one that asks its caller first
//! (`input-required-result-non-tool-request`), answered through the request's
//! `inputResponses`.

use toolwright_core::{
    CompletionRequest, Completions, Content, EmbeddedResource, PromptMessage, prompt, resource,
};

use super::*;

pub(crate) fn parse<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|error| McpError::internal_error(error.to_string(), None))
}

/// A complete result written as JSON: `resultType: "complete"` added, as MCP 2026-07-28
/// wants on every result (rmcp's constructors set it, a result read from JSON has none;
/// rmcp takes it off again for a client of an earlier revision).
pub(crate) fn complete<T: DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    if let Some(result) = value.as_object_mut() {
        result.insert("resultType".to_owned(), json!("complete"));
    }
    parse(value)
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

/// A prompt that asks the user for its context
#[prompt]
fn test_input_required_result_prompt() -> &'static str {
    // Served by `main.rs`'s handler (it asks first); listed from here.
    "Answer with the context the user gives."
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

/// The prompt that asks its caller a question first (scenario
/// `input-required-result-non-tool-request`).
pub(crate) const CONTEXT_PROMPT: &str = "test_input_required_result_prompt";

/// [`CONTEXT_PROMPT`]: a 2026-07-28 client is asked for the context in the result
/// (`InputRequiredResult`, key `user_context`) and repeats the request with the answer in
/// `inputResponses`. Nothing is kept between the two: the answer is read as it comes.
pub(crate) fn context_prompt(
    request: &GetPromptRequestParams,
) -> Result<GetPromptResponse, McpError> {
    let Some(answer) = request
        .input_responses
        .as_ref()
        .and_then(|responses| responses.get("user_context"))
    else {
        let question = json!({"user_context": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "What context should the prompt use?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"context": {"type": "string"}},
                    "required": ["context"]
                }
            }
        }});
        return Ok(GetPromptResponse::InputRequired(
            InputRequiredResult::from_input_requests(parse(question)?),
        ));
    };
    let context = match answer.get("action").and_then(Value::as_str) {
        Some("accept") => answer
            .pointer("/content/context")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                McpError::invalid_params(
                    "the answer to `user_context` has no string `context`",
                    None,
                )
            })?
            .to_owned(),
        Some(action) => format!("(none: the user chose {action})"),
        None => {
            return Err(McpError::invalid_params(
                "the answer to `user_context` is not an elicitation result",
                None,
            ));
        }
    };
    let text = format!("Answer with this context in mind: {context}");
    let result = json!({"description": "A prompt with the user's context", "messages": [
        {"role": "user", "content": {"type": "text", "text": text}}
    ]});
    Ok(complete::<GetPromptResult>(result)?.into())
}
