//! The suite's test tools, written with `#[tool]` (and one built at run time).

use super::*;

/// A 1x1 red PNG.
pub(crate) const RED_PIXEL_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xcf, 0xc0, 0x50,
    0x0f, 0x00, 0x04, 0x85, 0x01, 0x80, 0x84, 0xa9, 0x8c, 0x21, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A WAV file of `samples` silent 8-bit mono samples at 8 kHz.
pub(crate) fn silent_wav(samples: u32) -> Vec<u8> {
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
pub(crate) fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Always fails, as a tool error (conformance scenario `tools-call-error`).
#[tool]
pub(crate) fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100 (conformance scenario `tools-call-with-progress`).
#[tool]
pub(crate) async fn test_tool_with_progress(ctx: &ToolContext) -> String {
    for step in [0.0, 50.0, 100.0] {
        ctx.report_progress(step, Some(100.0), format!("{step}/100"));
    }
    "Progress test completed".to_owned()
}

/// Returns an image: a 1x1 red PNG (conformance scenario `tools-call-image`).
#[tool]
pub(crate) fn test_image_content() -> Image {
    Image::png(RED_PIXEL_PNG)
}

/// Returns audio: a short silent WAV (conformance scenario `tools-call-audio`).
#[tool]
pub(crate) fn test_audio_content() -> Audio {
    Audio::wav(silent_wav(800))
}

/// Returns an embedded text resource (conformance scenario `tools-call-embedded-resource`).
#[tool]
pub(crate) fn test_embedded_resource() -> EmbeddedResource {
    EmbeddedResource::text(
        "test://embedded-resource",
        "This is an embedded resource content.",
    )
    .with_mime_type("text/plain")
}

/// Returns text, an image and an embedded resource (conformance scenario
/// `tools-call-mixed-content`).
#[tool]
pub(crate) fn test_multiple_content_types() -> (&'static str, Image, EmbeddedResource) {
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
pub(crate) async fn test_tool_with_logging(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Info, "Tool execution started");
    ctx.log(LogLevel::Info, "Tool processing data");
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Logging test completed".to_owned()
}

/// Asks the client's model to answer a prompt (conformance scenario
/// `tools-call-sampling`).
#[tool]
pub(crate) async fn test_sampling(
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
pub(crate) struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// The answer to an elicitation as the suite's reference server words it.
pub(crate) fn describe<T: serde::Serialize>(answer: Elicitation<T>) -> String {
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
pub(crate) async fn test_elicitation(
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
pub(crate) async fn test_elicitation_sep1034_defaults(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
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
pub(crate) async fn test_elicitation_sep1330_enums(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
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
pub(crate) fn json_schema_2020_12_tool() -> Tool {
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
pub(crate) struct Name {
    /// Your name
    name: String,
}

/// A colour (the second round of `test_input_required_result_multi_round`).
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Colour {
    /// Your favourite colour
    color: String,
}

/// A confirmation.
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct Confirm {
    /// Whether you confirm
    ok: bool,
}

/// Asks for a name under the key `user_name`, then greets it (conformance scenarios
/// `input-required-result-basic-elicitation`, which names the key, `-result-type`,
/// `-missing-input-response`, `-ignore-extra-params`, `-validate-input`).
#[tool]
pub(crate) async fn test_input_required_result_elicitation(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let question = Ask::form::<Name>("What is your name?").key("user_name");
    Ok(match ctx.ask(question).await?.form::<Name>()? {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        other => format!("No name given: {}", describe(other)),
    })
}

/// Asks for the client's roots and names them (conformance scenario
/// `input-required-result-basic-list-roots`).
#[tool]
pub(crate) async fn test_input_required_result_list_roots(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let roots = ctx.ask(Ask::roots().key("client_roots")).await?.roots()?;
    Ok(format!("Roots: {}", list_roots(&roots)))
}

/// Asks three questions in one round: the user's name, the client's model, the client's
/// roots (conformance scenario `input-required-result-multiple-input-requests`).
#[tool]
pub(crate) async fn test_input_required_result_multiple_inputs(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let answers = ctx
        .ask_all([
            Ask::form::<Name>("What is your name?").key("user_name"),
            Ask::sample(
                vec![SamplingMessage::user("Generate a greeting")],
                SamplingOptions::new(50),
            )
            .key("greeting"),
            Ask::roots().key("client_roots"),
        ])
        .await?;
    let [name, greeting, roots] = <[Answer; 3]>::try_from(answers)
        .map_err(|_| ClientError::InvalidAnswer("expected three answers".to_owned()))?;
    Ok(format!(
        "Name: {}; greeting: {}; roots: {}",
        describe(name.form::<Name>()?),
        greeting.sampled()?.text,
        list_roots(&roots.roots()?)
    ))
}

/// Says which region it was sent for: `region` travels in the HTTP header `Mcp-Param-Region`
/// as well as in the arguments, and the server refuses a call whose header disagrees
/// (SEP-2243, scenario `http-custom-header-server-validation`).
#[tool]
pub(crate) fn test_custom_header(
    /// The region to route to.
    #[arg(header = "Region")]
    region: String,
) -> String {
    format!("routed to {region}")
}

/// The roots' URIs, comma-separated.
fn list_roots(roots: &[Root]) -> String {
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    uris.join(", ")
}

/// Asks the client's model a question (conformance scenario
/// `input-required-result-basic-sampling`).
#[tool]
pub(crate) async fn test_input_required_result_sampling(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let question = SamplingMessage::user("What is the capital of France?");
    let reply = ctx
        .sample(vec![question], SamplingOptions::new(100))
        .await?;
    Ok(format!("The model answered: {}", reply.text))
}

/// Asks for a confirmation; the answer arrives with the `requestState` the first round
/// issued, which toolwright-mcp checks (conformance scenario `input-required-result-request-state`).
#[tool]
pub(crate) async fn test_input_required_result_request_state(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(format!("state-ok: {}", describe(answer)))
}

/// Asks two questions, one round each (conformance scenario
/// `input-required-result-multi-round`).
#[tool]
pub(crate) async fn test_input_required_result_multi_round(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
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
pub(crate) async fn test_input_required_result_tampered_state(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(format!("Confirmed: {}", describe(answer)))
}

/// Asks the user if the client declared elicitation, then the client's model if it
/// declared sampling: only what the client can answer is asked (conformance scenario
/// `input-required-result-capability-check`).
#[tool]
pub(crate) async fn test_input_required_result_capabilities(
    ctx: &ToolContext,
) -> Result<String, ClientError> {
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
pub(crate) async fn test_missing_capability(ctx: &ToolContext) -> Result<String, ClientError> {
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
pub(crate) async fn test_streaming_elicitation(ctx: &ToolContext) -> Result<String, ClientError> {
    let answer = ctx.elicit::<Confirm>("Please confirm").await?;
    Ok(format!("Elicitation completed: {}", describe(answer)))
}

/// Logs while it runs: a 2026-07-28 client that gave no `logLevel` in the request's `_meta`
/// gets no log message (check `sep-2575-server-no-log-without-loglevel`).
#[tool]
pub(crate) async fn test_logging_tool(ctx: &ToolContext) -> String {
    ctx.log(LogLevel::Info, "Logging tool started");
    ctx.log(LogLevel::Warning, "Logging tool working");
    ctx.log(LogLevel::Info, "Logging tool done");
    "Logging tool completed".to_owned()
}

/// The name of the tool `test_trigger_tool_change` adds and removes.
pub(crate) const CHANGING_TOOL: &str = "test_changing_tool";

/// The registry, given to the one tool that changes it: a tool sees only a read-only catalog
/// unless the application hands it more, as here, through the executor's state.
pub(crate) struct ManagedRegistry(pub(crate) Arc<ToolRegistry>);

/// Changes the tool list: adds a tool, or removes it if there (checks
/// `sep-2575-server-sends-*subscription*`: a `subscriptions/listen` stream hears of it).
#[tool]
pub(crate) fn test_trigger_tool_change(
    #[state] managed: &ManagedRegistry,
) -> Result<String, ToolError> {
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
pub(crate) fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// The longest `slow_compute` waits: a task is kept an hour.
pub(crate) const MAX_SLOW_SECONDS: u64 = 600;

/// Waits `seconds`, then answers; a task when the client can poll (`tasks-*`). Cancelled
/// (`tasks/cancel`), it stops where it waits.
#[tool(task = "optional")]
pub(crate) async fn slow_compute(
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
pub(crate) async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed, as this tool always does"))
}

/// Crashes (a panic: the task fails with a JSON-RPC error, not a tool error;
/// `tasks-lifecycle`).
#[tool(task = "optional")]
pub(crate) fn protocol_error_job() -> String {
    panic!("protocol_error_job crashes, as it is meant to")
}

/// A confirmation to delete a file (`confirm_delete`).
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
pub(crate) struct DeleteConfirmation {
    /// Delete the file?
    confirm: bool,
}

/// Asks the user to confirm, then says what it would have done (`tasks-mrtr-input`,
/// `tasks-dispatch-and-envelope`: as a task, the question waits in `inputRequests`).
#[tool(task = "optional")]
pub(crate) async fn confirm_delete(
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
pub(crate) async fn multi_input(ctx: &ToolContext) -> Result<String, ClientError> {
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

/// Asks for a name, then greets it; runs only as a task, and asks first: a client of MCP
/// 2026-07-28 gets the question in the call's own answer (an `InputRequiredResult`), then a
/// task on the call that answers it, whose run finds the answer (scenario
/// `tasks-mrtr-composition`). `confirm_delete`, without `ask_first`, is a task at once and
/// asks through the task's `inputRequests` (`tasks-mrtr-input`).
#[tool(task = "required", ask_first)]
pub(crate) async fn test_tool_with_task(ctx: &ToolContext) -> Result<String, ClientError> {
    Ok(match ctx.elicit::<Name>("What is your name?").await? {
        Elicitation::Accepted(Name { name }) => format!("Hello, {name}!"),
        other => format!("No name given: {}", describe(other)),
    })
}

// ---- resources, prompts, completion (answered by the handler below)
