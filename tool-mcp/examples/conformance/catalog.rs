//! The resources, prompts and completions the suite's scenarios read (not a framework
//! feature: answered here through rmcp's `ServerHandler`).

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

pub(crate) fn resources() -> Value {
    json!({"resources": [
        {"uri": "test://static-text", "name": "static-text", "description": "A static text resource",
         "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "static-binary",
         "description": "A static binary resource (a PNG image)", "mimeType": "image/png"},
        {"uri": "test://watched-resource", "name": "watched-resource",
         "description": "A resource clients may subscribe to", "mimeType": "text/plain"}
    ]})
}

pub(crate) fn resource_templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "test://template/{id}/data", "name": "template-data",
         "description": "Data for an id, from a template", "mimeType": "application/json"}
    ]})
}

pub(crate) fn read(uri: &str) -> Option<Value> {
    let content = match uri {
        "test://static-text" => json!({"uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource."}),
        "test://static-binary" => {
            json!({"uri": uri, "mimeType": "image/png", "blob": red_pixel_base64()})
        }
        "test://watched-resource" => json!({"uri": uri, "mimeType": "text/plain",
            "text": "The watched resource's content."}),
        _ => {
            let id = uri
                .strip_prefix("test://template/")?
                .strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            json!({"uri": uri, "mimeType": "application/json", "text": text.to_string()})
        }
    };
    Some(json!({"contents": [content]}))
}

pub(crate) fn prompts() -> Value {
    json!({"prompts": [
        {"name": "test_simple_prompt", "description": "A simple prompt without arguments"},
        {"name": "test_prompt_with_arguments", "description": "A prompt with two arguments",
         "arguments": [
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": true}
         ]},
        {"name": "test_prompt_with_embedded_resource",
         "description": "A prompt that embeds a resource",
         "arguments": [{"name": "resourceUri", "description": "URI of the resource to embed",
                        "required": true}]},
        {"name": "test_prompt_with_image", "description": "A prompt with an image"},
        {"name": CONTEXT_PROMPT, "description": "A prompt that asks the user for its context"}
    ]})
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

pub(crate) fn prompt(
    name: &str,
    arguments: &serde_json::Map<String, Value>,
) -> Result<Value, McpError> {
    let argument = |key: &str| -> Result<String, McpError> {
        arguments
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                McpError::invalid_params(
                    format!("prompt `{name}` needs the argument `{key}`"),
                    None,
                )
            })
    };
    let text = |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
    let messages = match name {
        "test_simple_prompt" => vec![text("This is a simple prompt for testing.".to_owned())],
        "test_prompt_with_arguments" => {
            let (arg1, arg2) = (argument("arg1")?, argument("arg2")?);
            vec![text(format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            ))]
        }
        "test_prompt_with_embedded_resource" => vec![
            json!({"role": "user", "content": {"type": "resource", "resource": {
                "uri": argument("resourceUri")?, "mimeType": "text/plain",
                "text": "Embedded resource content for testing."}}}),
            text("Please process the embedded resource above.".to_owned()),
        ],
        "test_prompt_with_image" => vec![
            json!({"role": "user", "content": {"type": "image", "data": red_pixel_base64(),
                                               "mimeType": "image/png"}}),
            text("Please analyze the image above.".to_owned()),
        ],
        _ => {
            return Err(McpError::invalid_params(
                format!("unknown prompt `{name}`"),
                Some(json!({"prompt": name})),
            ));
        }
    };
    Ok(json!({"description": format!("The conformance prompt {name}"), "messages": messages}))
}

/// Completion values for the prompt argument `arg1`/`arg2` (anything else: none).
pub(crate) fn completion(request: &CompleteRequestParams) -> Value {
    let prefix = request.argument.value.as_str();
    let values: Vec<&str> = ["paris", "park", "party", "test", "testing"]
        .into_iter()
        .filter(|value| value.starts_with(prefix))
        .collect();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

// ---- the handler: tools to the McpServer, the rest here
