//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) tests:
//! its test tools written with `#[tool]` and served by [`McpServer`], and the resources,
//! prompts and completions its scenarios read, answered here through rmcp's `ServerHandler`
//! (they are not a framework feature). Run the suite against it with
//! `tool-mcp/tests/conformance/run.sh -- cargo run -p toolwright-mcp --features http --example conformance`.
//!
//! ```sh
//! cargo run -p toolwright-mcp --features http --example conformance -- 127.0.0.1:0   # prints its URL
//! ```
//!
//! [`Conformance`] wraps the [`McpServer`]: tools, `get_info` and the notifications go to it;
//! resources, prompts and completion are answered here. The HTTP side is rmcp's
//! `StreamableHttpService` (toolwright-mcp's `serve_http_with` serves only an `McpServer`), with
//! the same Host and Origin rules as toolwright-mcp's: loopback names only, no foreign `Origin`.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

#[allow(deprecated)] // logging/setLevel: deprecated by SEP-2577, still in the 2025-11-25 suite
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult, GetTaskParams,
    GetTaskResult, InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, Tool as McpTool, UnsubscribeRequestParams,
    UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolwright_core::client::{SamplingMessage, SamplingOptions};
use toolwright_core::{
    Audio, ClientError, Elicitation, EmbeddedResource, Image, LogLevel, SafetyLevel, Tool,
    ToolContext, ToolError, tool,
};
use toolwright_mcp::McpServer;
use toolwright_runtime::{Executor, ToolRegistry, register_all_tools};

/// A 1x1 red PNG.
const RED_PIXEL_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0x50,
    0x0f, 0x00, 0x04, 0x85, 0x01, 0x80, 0x84, 0xa9, 0x8c, 0x21, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The red pixel, base64 (for the resources and prompts, written here as JSON).
fn red_pixel_base64() -> String {
    Image::png(RED_PIXEL_PNG).data_base64()
}

/// A WAV file of `samples` silent 8-bit mono samples at 8 kHz.
fn silent_wav(samples: u32) -> Vec<u8> {
    let mut wav = Vec::with_capacity(44 + samples as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // the fmt chunk's size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes()); // samples per second
    wav.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&samples.to_le_bytes());
    wav.resize(44 + samples as usize, 0x80); // 8-bit PCM's silence
    wav
}

// ---- the test tools (scenarios tools-call-*)

/// Returns a simple text response (conformance scenario `tools-call-simple-text`).
#[tool]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, as a tool error (conformance scenario `tools-call-error`).
#[tool]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100 (conformance scenario `tools-call-with-progress`).
#[tool]
async fn test_tool_with_progress(ctx: &ToolContext) -> String {
    for step in [0.0, 50.0, 100.0] {
        ctx.report_progress(step, Some(100.0), format!("{step}/100"));
    }
    "Progress test completed".to_owned()
}

/// Returns an image: a 1x1 red PNG (conformance scenario `tools-call-image`).
#[tool]
fn test_image_content() -> Image {
    Image::png(RED_PIXEL_PNG)
}

/// Returns audio: a short silent WAV (conformance scenario `tools-call-audio`).
#[tool]
fn test_audio_content() -> Audio {
    Audio::wav(silent_wav(800))
}

/// Returns an embedded text resource (conformance scenario `tools-call-embedded-resource`).
#[tool]
fn test_embedded_resource() -> EmbeddedResource {
    EmbeddedResource::text(
        "test://embedded-resource",
        "This is an embedded resource content.",
    )
    .with_mime_type("text/plain")
}

/// Returns text, an image and an embedded resource (conformance scenario
/// `tools-call-mixed-content`).
#[tool]
fn test_multiple_content_types() -> (&'static str, Image, EmbeddedResource) {
    (
        "Multiple content types test:",
        Image::png(RED_PIXEL_PNG),
        EmbeddedResource::text(
            "test://mixed-content-resource",
            json!({"test": "data", "value": 123}).to_string(),
        )
        .with_mime_type("application/json"),
    )
}

/// Logs three messages to the client while it runs (conformance scenario
/// `tools-call-with-logging`).
#[tool]
async fn test_tool_with_logging(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Info, "Tool execution started");
    ctx.log(LogLevel::Info, "Tool processing data");
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Logging test completed".to_owned()
}

/// Asks the client's model to answer a prompt (conformance scenario
/// `tools-call-sampling`).
#[tool]
async fn test_sampling(
    ctx: &ToolContext,
    /// The prompt to send to the model.
    prompt: String,
) -> Result<String, ClientError> {
    let reply = ctx
        .sample(
            vec![SamplingMessage::user(prompt)],
            SamplingOptions::new(100),
        )
        .await?;
    Ok(format!("LLM response: {}", reply.text))
}

/// What `test_elicitation` asks the user.
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// The answer to an elicitation as the suite's reference server words it.
fn describe<T: serde::Serialize>(answer: Elicitation<T>) -> String {
    match answer {
        Elicitation::Accepted(content) => format!(
            "action=accept, content={}",
            serde_json::to_string(&content).unwrap_or_default()
        ),
        Elicitation::Declined => "action=decline".to_owned(),
        Elicitation::Cancelled => "action=cancel".to_owned(),
    }
}

/// Asks the user for a username and an email (conformance scenario
/// `tools-call-elicitation`).
#[tool]
async fn test_elicitation(
    ctx: &ToolContext,
    /// The question to show the user.
    message: String,
) -> Result<String, ClientError> {
    let answer = ctx.elicit::<UserInfo>(message).await?;
    Ok(format!("User response: {}", describe(answer)))
}

/// Asks with a form whose fields have defaults (conformance scenario
/// `elicitation-sep1034-defaults`, SEP-1034).
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> Result<String, ClientError> {
    let form = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                       "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        },
        "required": []
    });
    let answer = ctx
        .elicit_json(
            "Please review and update the form fields with defaults",
            form,
        )
        .await?;
    Ok(format!("Elicitation completed: {}", describe(answer)))
}

/// Asks with every enum form of MCP 2025-11-25 (conformance scenario
/// `elicitation-sep1330-enums`, SEP-1330).
#[tool]
async fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> Result<String, ClientError> {
    let choices = |titles: [&str; 3]| {
        let branches: Vec<Value> = titles
            .iter()
            .enumerate()
            .map(|(i, title)| json!({"const": format!("value{}", i + 1), "title": title}))
            .collect();
        Value::Array(branches)
    };
    let form = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "description": "Pick one (no titles)",
                               "enum": ["option1", "option2", "option3"]},
            "titledSingle": {"type": "string", "description": "Pick one (titled)",
                             "oneOf": choices(["First Option", "Second Option", "Third Option"])},
            "legacyEnum": {"type": "string", "description": "Pick one (legacy enumNames)",
                           "enum": ["opt1", "opt2", "opt3"],
                           "enumNames": ["Option One", "Option Two", "Option Three"]},
            "untitledMulti": {"type": "array", "description": "Pick several (no titles)",
                              "minItems": 1, "maxItems": 3,
                              "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
            "titledMulti": {"type": "array", "description": "Pick several (titled)",
                            "minItems": 1, "maxItems": 3,
                            "items": {"anyOf": choices(["First Choice", "Second Choice", "Third Choice"])}}
        },
        "required": []
    });
    let answer = ctx
        .elicit_json("Please pick from each kind of enum", form)
        .await?;
    Ok(format!("Elicitation completed: {}", describe(answer)))
}

/// The JSON Schema 2020-12 tool (scenario `json-schema-2020-12`): its input schema has
/// `$schema`, `$defs` and `additionalProperties: false` (SEP-1613), and an `$anchor`, `allOf`
/// / `anyOf` and `if` / `then` / `else` (SEP-2106, the suite's 0.2 line), which the listing
/// must keep. A runtime tool, to give the exact schema.
fn json_schema_2020_12_tool() -> Tool {
    Tool::builder("json_schema_2020_12_tool")
        .description("Tool with JSON Schema 2020-12 features")
        .input_schema(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"}
                    }
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {
                "properties": {"contactMethod": {"const": "phone"}},
                "required": ["contactMethod"]
            },
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }))
        .handler(|arguments: serde_json::Map<String, Value>| async move {
            format!(
                "JSON Schema 2020-12 tool called with {}",
                Value::Object(arguments)
            )
        })
        .build()
        .expect("the JSON Schema 2020-12 tool is well formed")
}

// ---- MCP 2026-07-28: multi round-trip requests (scenarios input-required-result-*, SEP-2322)
//
// A client of that revision is asked in the call's result: `ctx.elicit` and `ctx.sample`
// end the run with an `InputRequiredResult` (toolwright-mcp's `rounds`), and the repeated call
// runs the tool again with the answers. Written as for any client.

/// A name (the forms of the multi round-trip scenarios).
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

/// A colour (the second round of `test_input_required_result_multi_round`).
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Colour {
    /// Your favourite colour
    color: String,
}

/// A confirmation.
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Confirm {
    /// Whether you confirm
    ok: bool,
}

/// Asks for a name, then greets it (conformance scenarios
/// `input-required-result-result-type`, `-missing-input-response`, `-ignore-extra-params`,
/// `-validate-input`).
#[tool]
async fn test_input_required_result_elicitation(ctx: &ToolContext) -> Result<String, ClientError> {
    Ok(match ctx.elicit::<Name>("What is your name?").await? {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        other => format!("No name given: {}", describe(other)),
    })
}

/// Asks the client's model a question (conformance scenario
/// `input-required-result-basic-sampling`).
#[tool]
async fn test_input_required_result_sampling(ctx: &ToolContext) -> Result<String, ClientError> {
    let question = SamplingMessage::user("What is the capital of France?");
    let reply = ctx
        .sample(vec![question], SamplingOptions::new(100))
        .await?;
    Ok(format!("The model answered: {}", reply.text))
}

/// Asks for a confirmation; the answer arrives with the `requestState` the first round
/// issued, which toolwright-mcp checks (conformance scenario `input-required-result-request-state`).
#[tool]
async fn test_input_required_result_request_state(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(format!("state-ok: {}", describe(answer)))
}

/// Asks two questions, one round each (conformance scenario
/// `input-required-result-multi-round`).
#[tool]
async fn test_input_required_result_multi_round(ctx: &ToolContext) -> Result<String, ClientError> {
    let name = ctx.elicit::<Name>("Step 1: What is your name?").await?;
    let colour = ctx
        .elicit::<Colour>("Step 2: What is your favorite color?")
        .await?;
    Ok(format!(
        "Step 1: {}; step 2: {}",
        describe(name),
        describe(colour)
    ))
}

/// Asks for a confirmation under a sealed `requestState`; a changed one is refused
/// (conformance scenario `input-required-result-tampered-state`).
#[tool]
async fn test_input_required_result_tampered_state(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(format!("Confirmed: {}", describe(answer)))
}

/// Asks the user if the client declared elicitation, then the client's model if it
/// declared sampling: only what the client can answer is asked (conformance scenario
/// `input-required-result-capability-check`).
#[tool]
async fn test_input_required_result_capabilities(ctx: &ToolContext) -> Result<String, ClientError> {
    let confirmation = match ctx.elicit::<Confirm>("Please confirm").await {
        Ok(answer) => describe(answer),
        Err(ClientError::NotAvailable { .. }) => "not asked (no elicitation)".to_owned(),
        Err(error) => return Err(error),
    };
    let reply = match ctx
        .sample(
            vec![SamplingMessage::user("Say hello")],
            SamplingOptions::new(50),
        )
        .await
    {
        Ok(reply) => reply.text,
        Err(ClientError::NotAvailable { .. }) => "not asked (no sampling)".to_owned(),
        Err(error) => return Err(error),
    };
    Ok(format!("Confirmation: {confirmation}; model: {reply}"))
}

// ---- MCP 2026-07-28: the diagnostic tools of scenario `server-stateless` (SEP-2575)

/// Needs the client's model: answered with -32021 (the client did not declare sampling) by
/// the handler below before it runs, since toolwright-mcp lets a tool do without a power the
/// client lacks and has no way for a tool to say it cannot (scenario `server-stateless`,
/// checks `sep-2575-server-rejects-undeclared-capability`, `-missing-capability-http-400`).
#[tool]
async fn test_missing_capability(ctx: &ToolContext) -> Result<String, ClientError> {
    let reply = ctx
        .sample(
            vec![SamplingMessage::user("Say hello")],
            SamplingOptions::new(50),
        )
        .await?;
    Ok(format!("The model answered: {}", reply.text))
}

/// Asks the user while it runs: a 2026-07-28 client gets the question in the result, never
/// as a request on the call's stream (check `sep-2575-http-server-no-independent-requests-on-stream`).
#[tool]
async fn test_streaming_elicitation(ctx: &ToolContext) -> Result<String, ClientError> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(format!("Elicitation completed: {}", describe(answer)))
}

/// Logs while it runs: a 2026-07-28 client that gave no `logLevel` in the request's `_meta`
/// gets no log message (check `sep-2575-server-no-log-without-loglevel`).
#[tool]
async fn test_logging_tool(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Info, "Logging tool started");
    ctx.log(LogLevel::Warning, "Logging tool working");
    ctx.log(LogLevel::Info, "Logging tool done");
    "Logging tool completed".to_owned()
}

/// The name of the tool `test_trigger_tool_change` adds and removes.
const CHANGING_TOOL: &str = "test_changing_tool";

/// The registry, given to the one tool that changes it: a tool sees only a read-only catalog
/// unless the application hands it more, as here, through the executor's state.
struct ManagedRegistry(Arc<ToolRegistry>);

/// Changes the tool list: adds a tool, or removes it if there (checks
/// `sep-2575-server-sends-*subscription*`: a `subscriptions/listen` stream hears of it).
#[tool]
fn test_trigger_tool_change(#[state] managed: &ManagedRegistry) -> Result<String, ToolError> {
    let registry = &managed.0;
    if registry.remove(CHANGING_TOOL).is_some() {
        return Ok(format!("removed `{CHANGING_TOOL}`"));
    }
    let tool = Tool::builder(CHANGING_TOOL)
        .description("A tool test_trigger_tool_change adds and removes")
        .handler(|_: serde_json::Map<String, Value>| async { "changed" })
        .build()
        .map_err(|error| ToolError::new(error.to_string()))?;
    registry
        .register(tool)
        .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(format!("added `{CHANGING_TOOL}`"))
}

// ---- the tasks extension (scenarios tasks-*, SEP-2663)
//
// `#[tool(task = ...)]` is all a tool needs: a client that declared the extension gets a
// `CreateTaskResult` and polls `tasks/get`; toolwright-mcp runs the call in the background, puts
// its questions (`ctx.elicit`) in the task's `inputRequests`, and cancels it on
// `tasks/cancel` (the executor drops the run, as for any cancelled call).

/// Greets someone, in the call (a tool without task support: scenarios `tasks-lifecycle`,
/// `tasks-request-headers`, `tasks-dispatch-and-envelope`).
#[tool]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// The longest `slow_compute` waits: a task is kept an hour.
const MAX_SLOW_SECONDS: u64 = 600;

/// Waits `seconds`, then answers; a task when the client can poll (`tasks-*`). Cancelled
/// (`tasks/cancel`), it stops where it waits.
#[tool(task = "optional")]
async fn slow_compute(
    /// How long to work, in seconds (at most 600; 0 answers at once).
    seconds: u64,
    /// A label to echo in the result.
    label: Option<String>,
) -> Result<String, ToolError> {
    if seconds > MAX_SLOW_SECONDS {
        return Err(ToolError::new(format!(
            "`seconds` is at most {MAX_SLOW_SECONDS}, not {seconds}"
        )));
    }
    tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
    let label = label.map_or_else(String::new, |label| format!(" ({label})"));
    Ok(format!("computed for {seconds} s{label}"))
}

/// Works for a second, then fails with a tool error; runs only as a task
/// (`tasks-lifecycle`, `tasks-dispatch-and-envelope`, `tasks-required-task-error`).
#[tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed, as this tool always does"))
}

/// Crashes (a panic: the task fails with a JSON-RPC error, not a tool error;
/// `tasks-lifecycle`).
#[tool(task = "optional")]
fn protocol_error_job() -> String {
    panic!("protocol_error_job crashes, as it is meant to")
}

/// A confirmation to delete a file (`confirm_delete`).
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct DeleteConfirmation {
    /// Delete the file?
    confirm: bool,
}

/// Asks the user to confirm, then says what it would have done (`tasks-mrtr-input`,
/// `tasks-dispatch-and-envelope`: as a task, the question waits in `inputRequests`).
#[tool(task = "optional")]
async fn confirm_delete(
    ctx: &ToolContext,
    /// The file to delete.
    filename: String,
) -> Result<String, ClientError> {
    let answer = ctx
        .elicit::<DeleteConfirmation>(format!("Delete `{filename}`?"))
        .await?;
    Ok(match answer {
        Elicitation::Accepted(DeleteConfirmation { confirm: true }) => {
            format!("deleted `{filename}` (not really: this is a test server)")
        }
        other => format!("kept `{filename}`: {}", describe(other)),
    })
}

/// Asks two questions at once, a name and a confirmation (`tasks-mrtr-input`: both wait in
/// `inputRequests` until each is answered).
#[tool(task = "optional")]
async fn multi_input(ctx: &ToolContext) -> Result<String, ClientError> {
    let (name, confirmation) = tokio::join!(
        ctx.elicit::<Name>("What is your name?"),
        ctx.elicit::<DeleteConfirmation>("Do you confirm?"),
    );
    Ok(format!(
        "name: {}; confirmation: {}",
        describe(name?),
        describe(confirmation?)
    ))
}

/// Asks for a name, then greets it; runs only as a task. Scenario `tasks-mrtr-composition`
/// wants the question asked before the task exists (an `InputRequiredResult`, then a task
/// on the repeated call); toolwright-mcp decides on a task when the call arrives, and a task
/// tool's questions wait in the task's `inputRequests` (as `tasks-mrtr-input` wants of
/// `confirm_delete`), so that scenario is left out in CI (README.md there).
#[tool(task = "required")]
async fn test_tool_with_task(ctx: &ToolContext) -> Result<String, ClientError> {
    Ok(match ctx.elicit::<Name>("What is your name?").await? {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        other => format!("No name given: {}", describe(other)),
    })
}

// ---- resources, prompts, completion (answered by the handler below)

fn parse<T: DeserializeOwned>(value: Value) -> Result<T, McpError> {
    serde_json::from_value(value).map_err(|error| McpError::internal_error(error.to_string(), None))
}

/// A complete result written as JSON: `resultType: "complete"` added, as MCP 2026-07-28
/// wants on every result (rmcp's constructors set it, a result read from JSON has none;
/// rmcp takes it off again for a client of an earlier revision).
fn complete<T: DeserializeOwned>(mut value: Value) -> Result<T, McpError> {
    if let Some(result) = value.as_object_mut() {
        result.insert("resultType".to_owned(), json!("complete"));
    }
    parse(value)
}

fn resources() -> Value {
    json!({"resources": [
        {"uri": "test://static-text", "name": "static-text", "description": "A static text resource",
         "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "static-binary",
         "description": "A static binary resource (a PNG image)", "mimeType": "image/png"},
        {"uri": "test://watched-resource", "name": "watched-resource",
         "description": "A resource clients may subscribe to", "mimeType": "text/plain"}
    ]})
}

fn resource_templates() -> Value {
    json!({"resourceTemplates": [
        {"uriTemplate": "test://template/{id}/data", "name": "template-data",
         "description": "Data for an id, from a template", "mimeType": "application/json"}
    ]})
}

fn read(uri: &str) -> Option<Value> {
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

fn prompts() -> Value {
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
const CONTEXT_PROMPT: &str = "test_input_required_result_prompt";

/// [`CONTEXT_PROMPT`]: a 2026-07-28 client is asked for the context in the result
/// (`InputRequiredResult`, key `user_context`) and repeats the request with the answer in
/// `inputResponses`. Nothing is kept between the two: the answer is read as it comes.
fn context_prompt(request: &GetPromptRequestParams) -> Result<GetPromptResponse, McpError> {
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

fn prompt(name: &str, arguments: &serde_json::Map<String, Value>) -> Result<Value, McpError> {
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
fn completion(request: &CompleteRequestParams) -> Value {
    let prefix = request.argument.value.as_str();
    let values: Vec<&str> = ["paris", "park", "party", "test", "testing"]
        .into_iter()
        .filter(|value| value.starts_with(prefix))
        .collect();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}

// ---- the handler: tools to the McpServer, the rest here

/// The conformance server: an [`McpServer`] for the tools, resources and prompts answered
/// here.
#[derive(Clone)]
struct Conformance {
    tools: McpServer,
    /// The URIs clients subscribed to (the suite checks only that subscribe and unsubscribe
    /// answer; nothing changes, so no `notifications/resources/updated` is sent).
    subscriptions: Arc<Mutex<HashSet<String>>>,
}

impl ServerHandler for Conformance {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.tools.get_info();
        info.capabilities.resources = Some(
            serde_json::from_value(json!({"subscribe": true, "listChanged": false}))
                .expect("the resources capability"),
        );
        info.capabilities.prompts = Some(
            serde_json::from_value(json!({"listChanged": false})).expect("the prompts capability"),
        );
        info.capabilities.completions = Some(serde_json::Map::new());
        info
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.tools.on_initialized(context).await;
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.tools.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.tools.get_tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // A call that needs a power the client did not declare is refused before it runs
        // (SEP-2575: -32021, HTTP 400); rmcp words the error.
        if request.name == "test_missing_capability"
            && context
                .client_capabilities()
                .is_none_or(|capabilities| capabilities.sampling.is_none())
        {
            return Err(McpError::missing_required_client_capability(parse(
                json!({"sampling": {}}),
            )?));
        }
        self.tools.call_tool(request, context).await
    }

    // `subscriptions/listen` (a 2026-07-28 client): the McpServer's tool list changes. The
    // resources' `subscribe` and the prompts' list never change here, so nothing else is
    // sent.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.tools.accepted_subscription_filter(requested)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), McpError> {
        self.tools.listen(subscription).await
    }

    // Tasks (SEP-2663) are the McpServer's, as its `get_info` declares.
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        self.tools.get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.cancel_task(request, context).await
    }

    // `logging/setLevel` is the McpServer's (method not found until it has one).
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.tools.set_level(request, context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        complete(resources())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        complete(resource_templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let Some(result) = read(&request.uri) else {
            return Err(McpError::resource_not_found(
                format!("no resource `{}`", request.uri),
                Some(json!({"uri": request.uri})),
            ));
        };
        Ok(complete::<ReadResourceResult>(result)?.into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.lock().unwrap().insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.lock().unwrap().remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        complete(prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name == CONTEXT_PROMPT {
            return context_prompt(&request);
        }
        let arguments = request.arguments.clone().unwrap_or_default();
        Ok(complete::<GetPromptResult>(prompt(&request.name, &arguments)?)?.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        complete(completion(&request))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".to_owned())
        .parse()?;
    if !addr.ip().is_loopback() {
        return Err("the conformance server serves a loopback address only".into());
    }

    let registry = register_all_tools()?;
    registry.register(json_schema_2020_12_tool())?;
    let registry = Arc::new(registry);
    let executor = Executor::builder(Arc::clone(&registry))
        .max_safety(SafetyLevel::Dangerous)
        .state(ManagedRegistry(registry))
        .build();
    let handler = Conformance {
        tools: McpServer::new(executor).name("tool-mcp-conformance", env!("CARGO_PKG_VERSION")),
        subscriptions: Arc::default(),
    };

    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let port = local.port();
    // toolwright-mcp's rules: Host a loopback name; no Origin but the server's own.
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
        .with_allowed_origins([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .enforce_origin_validation();
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    println!("conformance: MCP server listening on http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
