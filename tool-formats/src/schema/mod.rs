//! Tool schemas in the formats model APIs take: OpenAI (chat and responses, with strict
//! mode), Anthropic, Gemini and MCP.
//!
//! ```
//! use toolwright_core::serde_json::json;
//! use toolwright_formats::schema::{tools_to_schema, Format};
//! use toolwright_core::tool;
//!
//! /// Get the weather for a city.
//! #[tool]
//! fn get_weather(city: String) -> String { format!("sunny in {city}") }
//!
//! let tools: Vec<_> = toolwright_core::linked_tools().filter(|t| t.name() == "get_weather").collect();
//! let openai = tools_to_schema(&tools, Format::OpenAiChat);
//! assert_eq!(openai[0]["type"], "function");
//! assert_eq!(openai[0]["function"]["name"], "get_weather");
//! assert_eq!(openai[0]["function"]["parameters"]["required"], json!(["city"]));
//! ```

// The layers, lowest first (no module imports one listed after it): notes, gemini, inline,
// strict.
mod gemini;
mod inline;
mod notes;
mod strict;

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use toolwright_core::SafetyLevel;
use toolwright_core::Tool;

/// A model API's tool format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// OpenAI Chat Completions: `{"type":"function","function":{"name","description","parameters"}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type":"function","name","description","parameters","strict"}`.
    OpenAiResponses,
    /// Anthropic Messages: `{"name","description","input_schema"}`.
    Anthropic,
    /// Gemini function declarations: `{"name","description","parameters"}` in Gemini's
    /// OpenAPI subset.
    Gemini,
    /// Model Context Protocol `tools/list` entries:
    /// `{"name","title","description","inputSchema","outputSchema","annotations","_meta"}`.
    Mcp,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 5] = [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ];

    /// The format's name on the command line: `openai`, `openai-responses`, `anthropic`,
    /// `gemini`, `mcp`.
    ///
    /// ```
    /// use toolwright_formats::schema::Format;
    /// assert_eq!(Format::OpenAiResponses.as_str(), "openai-responses");
    /// assert_eq!("openai".parse::<Format>().unwrap(), Format::OpenAiChat);
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = SchemaError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        match wanted.as_str() {
            "openai" | "openai-chat" => Ok(Format::OpenAiChat),
            "openai-responses" | "responses" => Ok(Format::OpenAiResponses),
            "anthropic" | "claude" => Ok(Format::Anthropic),
            "gemini" | "google" => Ok(Format::Gemini),
            "mcp" => Ok(Format::Mcp),
            _ => Err(SchemaError::UnknownFormat {
                given: s.to_owned(),
            }),
        }
    }
}

/// How to export.
///
/// ```
/// use toolwright_formats::schema::SchemaOptions;
/// let options = SchemaOptions::new().strict(true).inline_refs(true);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    strict: bool,
    inline_refs: Option<bool>,
}

impl SchemaOptions {
    /// The defaults: not strict; `$ref`s inlined for Gemini only.
    pub fn new() -> Self {
        SchemaOptions::default()
    }

    /// OpenAI strict mode (OpenAI formats only): every property required, optional ones
    /// nullable, `additionalProperties: false` everywhere, unsupported keywords moved into
    /// descriptions. A tool that cannot be made strict is an error, not sent as is.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Replace `$ref`s with the definitions they point to (for clients that cannot resolve
    /// references). Default: on for Gemini, off otherwise.
    pub fn inline_refs(mut self, inline: bool) -> Self {
        self.inline_refs = Some(inline);
        self
    }

    fn inlines(self, format: Format) -> bool {
        self.inline_refs.unwrap_or(format == Format::Gemini)
    }
}

/// Why tools could not be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// Strict mode was asked for a format that has none.
    #[error(
        "strict mode is an OpenAI feature; `{format}` has none (use `openai` or `openai-responses`)"
    )]
    StrictNotSupported {
        /// The format asked for.
        format: Format,
    },
    /// Some tools' schemas cannot be made strict; each is listed with the reason.
    #[error("{} cannot be exported in OpenAI strict mode: {}", if failures.len() == 1 { "a tool" } else { "some tools" }, failures.iter().map(|(tool, why)| format!("`{tool}`: {why}")).collect::<Vec<_>>().join("; "))]
    NotStrict {
        /// `(tool name, reason)` for every tool that failed.
        failures: Vec<(String, String)>,
    },
    /// A format name that is not one of ours.
    #[error(
        "unknown schema format `{given}`: expected `openai`, `openai-responses`, `anthropic`, `gemini` or `mcp`"
    )]
    UnknownFormat {
        /// The name given.
        given: String,
    },
}

/// The tools in `format`, with default options (never strict). Deterministic: the same
/// tools give the same bytes.
///
/// ```
/// use toolwright_formats::schema::{tools_to_schema, Format};
/// assert!(tools_to_schema(&[], Format::Anthropic).is_empty());
/// ```
pub fn tools_to_schema(tools: &[Tool], format: Format) -> Vec<Value> {
    let inline = SchemaOptions::new().inlines(format);
    tools
        .iter()
        .map(|tool| {
            // A non-strict export cannot fail.
            cached_export(tool, format, false, inline)
                .unwrap_or_else(|_| json!({"name": tool.name()}))
        })
        .collect()
}

/// The tools in `format` with `options`.
///
/// # Errors
///
/// [`SchemaError::StrictNotSupported`] for strict mode outside OpenAI formats;
/// [`SchemaError::NotStrict`] listing every tool that cannot be made strict.
///
/// ```
/// use toolwright_formats::schema::{tools_to_schema_with, Format, SchemaOptions};
/// use toolwright_core::tool;
///
/// /// Search the notes.
/// #[tool]
/// fn search_notes(query: String, limit: Option<u32>) -> String { query }
///
/// let tools: Vec<_> = toolwright_core::linked_tools().filter(|t| t.name() == "search_notes").collect();
/// let strict = tools_to_schema_with(&tools, Format::OpenAiResponses, SchemaOptions::new().strict(true)).unwrap();
/// assert_eq!(strict[0]["strict"], true);
/// assert_eq!(strict[0]["parameters"]["required"], toolwright_core::serde_json::json!(["query", "limit"]));
/// assert_eq!(strict[0]["parameters"]["properties"]["limit"]["type"], toolwright_core::serde_json::json!(["integer", "null"]));
/// ```
pub fn tools_to_schema_with(
    tools: &[Tool],
    format: Format,
    options: SchemaOptions,
) -> Result<Vec<Value>, SchemaError> {
    if options.strict && !matches!(format, Format::OpenAiChat | Format::OpenAiResponses) {
        return Err(SchemaError::StrictNotSupported { format });
    }
    let mut exported = Vec::with_capacity(tools.len());
    let mut failures = Vec::new();
    for tool in tools {
        match cached_export(tool, format, options.strict, options.inlines(format)) {
            Ok(value) => exported.push(value),
            Err(reason) => failures.push((tool.name().to_owned(), reason)),
        }
    }
    if failures.is_empty() {
        Ok(exported)
    } else {
        Err(SchemaError::NotStrict { failures })
    }
}

/// One tool in `format` with `options`.
///
/// # Errors
///
/// As [`tools_to_schema_with`].
///
/// ```
/// use toolwright_formats::schema::{tool_to_schema, Format, SchemaOptions};
/// use toolwright_core::tool;
///
/// /// Ping a host.
/// #[tool]
/// fn ping_host(host: String) -> String { host }
///
/// let tool = toolwright_core::linked_tools().find(|t| t.name() == "ping_host").unwrap();
/// let value = tool_to_schema(&tool, Format::Anthropic, SchemaOptions::new()).unwrap();
/// assert_eq!(value["input_schema"]["properties"]["host"]["type"], "string");
/// ```
pub fn tool_to_schema(
    tool: &Tool,
    format: Format,
    options: SchemaOptions,
) -> Result<Value, SchemaError> {
    tools_to_schema_with(std::slice::from_ref(tool), format, options)
        .map(|mut values| values.remove(0))
}

/// A tool's exports, kept with the tool: one per format, strict or not, inlined or not.
struct ExportCache {
    slots: [OnceLock<Result<Value, String>>; Format::ALL.len() * 4],
}

impl Default for ExportCache {
    fn default() -> Self {
        ExportCache {
            slots: std::array::from_fn(|_| OnceLock::new()),
        }
    }
}

/// The tool in `format`, computed once per tool, format and options and then copied: a
/// tool's schema never changes, and an application exports the same tools on every request.
fn cached_export(tool: &Tool, format: Format, strict: bool, inline: bool) -> Result<Value, String> {
    let format_index = Format::ALL.iter().position(|f| *f == format).unwrap_or(0);
    let slot = format_index * 4 + usize::from(strict) * 2 + usize::from(inline);
    tool.cache::<ExportCache>().slots[slot]
        .get_or_init(|| {
            let mut schema = parameters(tool, format, inline);
            if strict {
                schema = strict::make_strict(&schema)?;
            }
            Ok(wrap(tool, format, schema, strict, inline))
        })
        .clone()
}

/// The parameters schema as exported, optionally with references inlined. `$schema` is
/// dropped, except in MCP's format: there a schema keeps the dialect it declares (SEP-1613;
/// the MCP conformance suite's `json-schema-2020-12` scenario checks it, with `$defs` and
/// `additionalProperties`). Otherwise the schema is the tool's, keyword for keyword: an
/// object schema without `properties` gets an empty one (some providers require the key,
/// and it changes nothing it accepts), and only a `#[tool]` without parameters is written
/// `{"type":"object","properties":{}}`. A runtime tool's schema (a mounted upstream's) is
/// never rebuilt: what a client reads accepts exactly what the tool's does.
fn parameters(tool: &Tool, format: Format, inline: bool) -> Value {
    let mut schema = tool.input_schema().clone();
    if let Some(object) = schema.as_object_mut() {
        if format != Format::Mcp {
            object.remove("$schema");
        }
        let no_properties = object
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty);
        // A `#[tool]`'s own shape, written as it always was.
        if tool.origin().is_some() && no_properties && !object.contains_key("$defs") {
            return json!({"type": "object", "properties": {}});
        }
        if object.get("type") == Some(&json!("object")) && !object.contains_key("properties") {
            object.insert("properties".into(), json!({}));
        }
    }
    if inline {
        schema = inline::inline_refs(&schema);
    }
    schema
}

/// The tool in `format`, around its (already prepared) parameters schema.
fn wrap(tool: &Tool, format: Format, parameters: Value, strict: bool, inline: bool) -> Value {
    match format {
        Format::OpenAiChat => {
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name()));
            function.insert("description".into(), json!(tool.description()));
            function.insert("parameters".into(), parameters);
            if strict {
                function.insert("strict".into(), json!(true));
            }
            json!({"type": "function", "function": function})
        }
        Format::OpenAiResponses => json!({
            "type": "function",
            "name": tool.name(),
            "description": tool.description(),
            "parameters": parameters,
            "strict": strict,
        }),
        Format::Anthropic => json!({
            "name": tool.name(),
            "description": tool.description(),
            "input_schema": parameters,
        }),
        Format::Gemini => json!({
            "name": tool.name(),
            "description": tool.description(),
            "parameters": gemini::to_gemini(&parameters),
        }),
        Format::Mcp => mcp_tool(tool, parameters, inline),
    }
}

/// An MCP `Tool`: annotations from the safety level, every hint explicit.
fn mcp_tool(tool: &Tool, input_schema: Value, inline: bool) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(tool.name()));
    out.insert("title".into(), json!(title(tool.name())));
    out.insert("description".into(), json!(tool.description()));
    out.insert("inputSchema".into(), input_schema);
    // MCP requires an object output schema; other outputs are sent as text only.
    if let Some(output) = mcp_output_schema(tool) {
        let output = if inline {
            inline::inline_refs(&output)
        } else {
            output
        };
        out.insert("outputSchema".into(), output);
    }
    out.insert("annotations".into(), mcp_annotations(tool));
    let mut meta = Map::new();
    meta.insert("categories".into(), json!(tool.categories()));
    meta.insert("tags".into(), json!(tool.tags()));
    meta.insert("safety".into(), json!(tool.safety()));
    if let Some(version) = tool.version() {
        meta.insert("version".into(), json!(version));
    }
    // Whether a call may become a task (the tasks extension, SEP-2663): the 2026-07-28
    // `Tool` has no field for it (the server decides per call), so it is said here, for
    // clients that want to know a call of a `required` tool needs the extension.
    if tool.task_support().allows_task() {
        meta.insert("taskSupport".into(), json!(tool.task_support()));
    }
    out.insert("_meta".into(), Value::Object(meta));
    Value::Object(out)
}

/// The tool's output schema when MCP can carry it (an object schema).
pub fn mcp_output_schema(tool: &Tool) -> Option<Value> {
    let output = tool.output_schema()?;
    (output.get("type") == Some(&json!("object"))).then(|| output.clone())
}

/// MCP tool annotations from the safety level: safe tools are read-only; cautious ones
/// change state without destroying it; dangerous ones may destroy. `openWorldHint` is set
/// for tools in a `network` or `web` category or tag.
///
/// ```
/// use toolwright_formats::schema::mcp_annotations;
/// use toolwright_core::tool;
///
/// /// Drop a table.
/// #[tool(safety = "dangerous")]
/// fn drop_table(name: String) -> String { name }
///
/// let tool = toolwright_core::linked_tools().find(|t| t.name() == "drop_table").unwrap();
/// let annotations = mcp_annotations(&tool);
/// assert_eq!(annotations["destructiveHint"], true);
/// assert_eq!(annotations["readOnlyHint"], false);
/// ```
pub fn mcp_annotations(tool: &Tool) -> Value {
    let (read_only, destructive, idempotent) = match tool.safety() {
        SafetyLevel::Safe => (true, false, true),
        SafetyLevel::Cautious => (false, false, false),
        SafetyLevel::Dangerous => (false, true, false),
    };
    let open_world = tool
        .categories()
        .iter()
        .chain(tool.tags())
        .any(|label| matches!(label.as_ref(), "network" | "web" | "internet"));
    json!({
        "title": title(tool.name()),
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    })
}

/// `read_file` -> `Read file`.
fn title(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
