//! Tools defined at run time: a name, a JSON Schema and a closure, checked like `#[tool]`.

use std::borrow::Cow;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::args::{ArgumentError, InvalidArguments, describe_value};
use crate::suggest::did_you_mean;
use crate::tool::{Described, Description, Handler, ToolInner};
use crate::{IntoToolOutput, ParamInfo, SafetyLevel, Tool, ToolContext, ToolSource, ToolSpec};

/// Longest tool name model APIs accept.
pub(crate) const MAX_NAME_LEN: usize = 64;

/// Why a runtime-defined tool could not be built. Each message names the tool and says how to
/// fix the definition.
///
/// ```
/// use tool_runtime::{Tool, ToolDefinitionError};
///
/// let err = Tool::builder("ReadFile").description("x").handler(|_| async { "ok" }).build().unwrap_err();
/// assert!(matches!(err, ToolDefinitionError::InvalidName { .. }));
/// assert!(err.to_string().contains("did you mean `read_file`?"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolDefinitionError {
    /// The name is not `^[a-z][a-z0-9_]*$` or is too long.
    #[error("tool name `{name}` is invalid: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// What is wrong, with a suggestion when there is one.
        reason: String,
    },
    /// No description, or an empty one.
    #[error(
        "tool `{tool}` has no description: give one with `.description(\"...\")`; the model reads it to decide when to use the tool"
    )]
    MissingDescription {
        /// The tool.
        tool: String,
    },
    /// No handler was given.
    #[error(
        "tool `{tool}` has no handler: give one with `.handler(|args| async move {{ ... }})` or `.sync_handler(|args| ...)`"
    )]
    MissingHandler {
        /// The tool.
        tool: String,
    },
    /// A schema is not valid JSON Schema, or the input schema is not an object schema.
    #[error("the {which} schema of tool `{tool}` is invalid: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `"input"` or `"output"`.
        which: &'static str,
        /// What is wrong.
        message: String,
    },
    /// `required` names a property the input schema does not have.
    #[error("tool `{tool}` requires `{param}`, which is not among the input schema's properties{}", suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownRequired {
        /// The tool.
        tool: String,
        /// The name in `required`.
        param: String,
        /// A property with a close name.
        suggestion: Option<String>,
    },
    /// A category or tag is empty.
    #[error("tool `{tool}` has an empty {what}")]
    EmptyLabel {
        /// The tool.
        tool: String,
        /// `"category"` or `"tag"`.
        what: &'static str,
    },
}

/// Checks a tool name: `^[a-z][a-z0-9_]*$`, at most 64 characters.
pub(crate) fn check_name(name: &str) -> Result<(), ToolDefinitionError> {
    let mut chars = name.chars();
    let snake = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake {
        let fixed = to_snake_case(name);
        let hint = if fixed != name && !fixed.is_empty() && check_name(&fixed).is_ok() {
            format!("; did you mean `{fixed}`?")
        } else {
            String::new()
        };
        return Err(ToolDefinitionError::InvalidName {
            name: name.to_owned(),
            reason: format!(
                "it must start with a lowercase letter and contain only lowercase letters, digits and `_`{hint}"
            ),
        });
    }
    if name.len() > MAX_NAME_LEN {
        return Err(ToolDefinitionError::InvalidName {
            name: name.to_owned(),
            reason: format!(
                "it is {} characters long; model APIs accept at most {MAX_NAME_LEN}",
                name.len()
            ),
        });
    }
    Ok(())
}

fn to_snake_case(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if matches!(c, '-' | ' ' | '.') {
            out.push('_');
            previous_lower = false;
        } else {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        }
    }
    out
}

/// Builds a tool at run time from a JSON Schema and a closure over the argument object.
///
/// Made by [`Tool::builder`]. The arguments a model sends are validated against the input
/// schema before the handler runs; problems are reported like those of `#[tool]` functions.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use serde_json::{json, Map, Value};
/// use tool_runtime::{SafetyLevel, Tool, ToolError};
///
/// let tool = Tool::builder("lookup_city")
///     .description("Look up a city.")
///     .input_schema(json!({"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}))
///     .safety(SafetyLevel::Safe)
///     .version("1.0.0")
///     .handler(|args: Map<String, Value>| async move { Ok::<_, ToolError>(json!(args["q"])) })
///     .build()
///     .unwrap();
///
/// let args = json!({"q": "Paris"}).as_object().unwrap().clone();
/// assert_eq!(tool.call(args).await.unwrap().content, "\"Paris\"");
/// let err = tool.call(Map::new()).await.unwrap_err();
/// assert_eq!(err.to_string(), "invalid arguments for tool `lookup_city`: missing required parameter `q` (expected string)");
/// # }
/// ```
#[must_use = "a builder does nothing until `.build()`"]
pub struct ToolBuilder {
    name: String,
    description: Option<String>,
    input_schema: Value,
    output_schema: Option<Value>,
    safety: SafetyLevel,
    categories: Vec<String>,
    tags: Vec<String>,
    version: Option<String>,
    priority: i32,
    source: ToolSource,
    handler: Option<Handler>,
    preview: Option<crate::tool::PreviewFn>,
}

impl Tool {
    /// Starts a tool defined at run time; see [`ToolBuilder`].
    #[track_caller]
    pub fn builder(name: impl Into<String>) -> ToolBuilder {
        let caller = Location::caller();
        ToolBuilder {
            name: name.into(),
            description: None,
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
            output_schema: None,
            safety: SafetyLevel::Safe,
            categories: Vec::new(),
            tags: Vec::new(),
            version: None,
            priority: crate::priority::DEFAULT,
            source: ToolSource {
                crate_name: Cow::Borrowed("(runtime)"),
                module_path: Cow::Borrowed(""),
                file: Cow::Owned(caller.file().to_owned()),
                line: caller.line(),
            },
            handler: None,
            preview: None,
        }
    }
}

impl ToolBuilder {
    /// What the tool does and when to use it (required).
    ///
    /// ```
    /// # use tool_runtime::Tool;
    /// let tool = Tool::builder("ping").description("Check that the service answers.")
    ///     .handler(|_| async { "pong" }).build().unwrap();
    /// assert_eq!(tool.description(), "Check that the service answers.");
    /// ```
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The JSON Schema of the argument object (default: no parameters).
    ///
    /// ```
    /// # use tool_runtime::Tool;
    /// let tool = Tool::builder("greet").description("Greet someone.")
    ///     .input_schema(serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}))
    ///     .handler(|args| async move { format!("hi {}", args["name"]) }).build().unwrap();
    /// assert_eq!(tool.required(), ["name"]);
    /// ```
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }

    /// The JSON Schema of the structured output.
    ///
    /// ```
    /// # use tool_runtime::Tool;
    /// let tool = Tool::builder("stats").description("Count things.")
    ///     .output_schema(serde_json::json!({"type": "object", "properties": {"count": {"type": "integer"}}}))
    ///     .handler(|_| async { serde_json::json!({"count": 3}) }).build().unwrap();
    /// assert!(tool.output_schema().is_some());
    /// ```
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// How much the tool may change the world (default: safe).
    ///
    /// ```
    /// # use tool_runtime::{SafetyLevel, Tool};
    /// let tool = Tool::builder("purge").description("Delete old records.").safety(SafetyLevel::Dangerous)
    ///     .handler(|_| async { "purged" }).build().unwrap();
    /// assert_eq!(tool.safety(), SafetyLevel::Dangerous);
    /// ```
    pub fn safety(mut self, safety: SafetyLevel) -> Self {
        self.safety = safety;
        self
    }

    /// Categories for filtering.
    ///
    /// ```
    /// # use tool_runtime::Tool;
    /// let tool = Tool::builder("add").description("Add numbers.").categories(["math"])
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.categories(), ["math"]);
    /// ```
    pub fn categories<I, S>(mut self, categories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.categories = categories.into_iter().map(Into::into).collect();
        self
    }

    /// Tags for filtering and search.
    ///
    /// ```
    /// # use tool_runtime::Tool;
    /// let tool = Tool::builder("add").description("Add numbers.").tags(["arithmetic"])
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.tags(), ["arithmetic"]);
    /// ```
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// The tool's version.
    ///
    /// ```
    /// # use tool_runtime::Tool;
    /// let tool = Tool::builder("add").description("Add numbers.").version("2.1.0")
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.version(), Some("2.1.0"));
    /// ```
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The priority in listings, higher first (default: [`priority::COMMUNITY`](crate::priority::COMMUNITY)).
    ///
    /// ```
    /// # use tool_runtime::{priority, Tool};
    /// let tool = Tool::builder("add").description("Add numbers.").priority(priority::BUILTIN)
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.priority(), 100);
    /// ```
    pub fn priority(mut self, priority: i32) -> Self {
        self.priority = priority;
        self
    }

    /// Where the tool is defined (default: the `Tool::builder` call).
    ///
    /// ```
    /// # use tool_runtime::{Tool, ToolSource};
    /// let tool = Tool::builder("add").description("Add numbers.")
    ///     .source(ToolSource::new("plugins", "plugins::math", "math.toml", 3))
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.source().file, "math.toml");
    /// ```
    pub fn source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }

    /// An async handler over the validated argument object. It may return anything
    /// [`IntoToolOutput`], such as `Result<serde_json::Value, ToolError>`.
    pub fn handler<F, Fut, T>(mut self, handler: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = T> + Send + 'static,
        T: IntoToolOutput + 'static,
    {
        self.handler = Some(Handler::Async(Arc::new(move |_ctx: ToolContext, args| {
            let future = handler(args);
            Box::pin(async move { future.await.into_tool_output() })
        })));
        self
    }

    /// An async handler that also receives the call's [`ToolContext`].
    pub fn handler_with_context<F, Fut, T>(mut self, handler: F) -> Self
    where
        F: Fn(ToolContext, Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = T> + Send + 'static,
        T: IntoToolOutput + 'static,
    {
        self.handler = Some(Handler::Async(Arc::new(move |ctx, args| {
            let future = handler(ctx, args);
            Box::pin(async move { future.await.into_tool_output() })
        })));
        self
    }

    /// A blocking handler; the executor runs it on a blocking thread.
    pub fn sync_handler<F, T>(mut self, handler: F) -> Self
    where
        F: Fn(&ToolContext, Map<String, Value>) -> T + Send + Sync + 'static,
        T: IntoToolOutput,
    {
        self.handler = Some(Handler::Sync(Arc::new(move |ctx, args| {
            handler(ctx, args).into_tool_output()
        })));
        self
    }

    /// What a call would do, shown to the person approving a dangerous call (a diff, a
    /// summary). A preview that fails fails the call without asking.
    pub fn preview<F>(mut self, preview: F) -> Self
    where
        F: Fn(&ToolContext, &Map<String, Value>) -> Result<String, crate::ToolError>
            + Send
            + Sync
            + 'static,
    {
        self.preview = Some(Arc::new(preview));
        self
    }

    /// Checks the definition like `#[tool]` does at compile time, and builds the tool.
    pub fn build(self) -> Result<Tool, ToolDefinitionError> {
        let tool = self.name.clone();
        check_name(&self.name)?;
        let description = self
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .ok_or_else(|| ToolDefinitionError::MissingDescription { tool: tool.clone() })?
            .to_owned();
        for (labels, what) in [(&self.categories, "category"), (&self.tags, "tag")] {
            if labels.iter().any(|label| label.trim().is_empty()) {
                return Err(ToolDefinitionError::EmptyLabel {
                    tool: tool.clone(),
                    what,
                });
            }
        }
        let invalid = |which, message: String| ToolDefinitionError::InvalidSchema {
            tool: tool.clone(),
            which,
            message,
        };
        check_schema(&self.input_schema).map_err(|m| invalid("input", m))?;
        if let Some(output) = &self.output_schema {
            check_schema(output).map_err(|m| invalid("output", m))?;
        }
        let params = params_of(&tool, &self.input_schema)?;
        let validator = jsonschema::validator_for(&self.input_schema)
            .map_err(|error| invalid("input", error.to_string()))?;
        let inner_handler = self
            .handler
            .ok_or_else(|| ToolDefinitionError::MissingHandler { tool: tool.clone() })?;
        let checker = Arc::new(ArgumentChecker {
            tool: tool.clone(),
            validator,
            names: params.iter().map(|p| p.name().to_owned()).collect(),
            optional: params
                .iter()
                .filter(|p| !p.is_required())
                .map(|p| p.name().to_owned())
                .collect(),
        });
        let handler = checker.wrap(inner_handler);
        Ok(Tool {
            inner: Arc::new(ToolInner {
                name: self.name.clone(),
                description_text: description.clone(),
                version: self.version.clone(),
                safety: self.safety,
                categories: self.categories.clone(),
                tags: self.tags.clone(),
                priority: self.priority,
                source: self.source,
                handler,
                preview: self.preview,
                described: Description::Ready(Described {
                    spec: ToolSpec {
                        name: self.name,
                        description,
                        version: self.version,
                        safety: self.safety,
                        categories: self.categories,
                        tags: self.tags,
                        input_schema: self.input_schema,
                        output_schema: self.output_schema,
                    },
                    params,
                }),
                exports: Default::default(),
            }),
        })
    }
}

/// A schema is valid JSON Schema (by its `$schema`, 2020-12 when absent).
fn check_schema(schema: &Value) -> Result<(), String> {
    const KNOWN: [&str; 5] = [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-04/schema",
    ];
    if let Some(declared) = schema.get("$schema") {
        let known = declared
            .as_str()
            .is_some_and(|uri| KNOWN.iter().any(|k| uri.trim_end_matches('#') == *k));
        if !known {
            return Err(format!(
                "`$schema` is {declared}; supported drafts are 2020-12, 2019-09, 7, 6 and 4"
            ));
        }
    }
    if !schema.is_object() && !schema.is_boolean() {
        return Err(format!(
            "a schema is a JSON object, got {}",
            describe_value(schema)
        ));
    }
    jsonschema::meta::validate(schema).map_err(|error| {
        let at = error.instance_path().to_string();
        if at.is_empty() {
            error.to_string()
        } else {
            format!("at `{at}`: {error}")
        }
    })
}

/// The parameters described by an object schema's `properties` and `required`.
fn params_of(tool: &str, schema: &Value) -> Result<Vec<ParamInfo>, ToolDefinitionError> {
    let invalid = |message: String| ToolDefinitionError::InvalidSchema {
        tool: tool.to_owned(),
        which: "input",
        message,
    };
    let object = schema
        .as_object()
        .ok_or_else(|| invalid("the input schema must be an object schema".to_owned()))?;
    match object.get("type") {
        Some(Value::String(ty)) if ty == "object" => {}
        other => {
            return Err(invalid(format!(
                "the input schema must have `\"type\": \"object\"` (tool arguments are a JSON object), got {}",
                other.map_or_else(|| "no type".to_owned(), Value::to_string)
            )));
        }
    }
    let empty = Map::new();
    let properties = match object.get("properties") {
        None => &empty,
        Some(Value::Object(properties)) => properties,
        Some(other) => {
            return Err(invalid(format!(
                "`properties` must be an object, got {other}"
            )));
        }
    };
    let required: Vec<&str> = match object.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        Some(other) => return Err(invalid(format!("`required` must be an array, got {other}"))),
    };
    for name in &required {
        if !properties.contains_key(*name) {
            return Err(ToolDefinitionError::UnknownRequired {
                tool: tool.to_owned(),
                param: (*name).to_owned(),
                suggestion: did_you_mean(name, properties.keys().map(String::as_str))
                    .map(str::to_owned),
            });
        }
    }
    Ok(properties
        .iter()
        .map(|(name, property)| {
            let mut param = ParamInfo::new(
                name,
                property.get("description").and_then(Value::as_str),
                required.contains(&name.as_str()),
                property.get("writeOnly") == Some(&Value::Bool(true)),
                property.clone(),
                property.get("default").cloned(),
            );
            param.set_expected(crate::input_schema::describe(property, schema));
            param
        })
        .collect())
}

/// Checks a runtime tool's arguments against its schema before the handler sees them.
struct ArgumentChecker {
    tool: String,
    validator: jsonschema::Validator,
    /// The properties, for "valid parameters" lists.
    names: Vec<String>,
    /// Properties not in `required`: `null` for them means absent, as for `#[tool]` functions
    /// (and OpenAI strict mode sends optional parameters as `null`).
    optional: Vec<String>,
}

impl ArgumentChecker {
    fn wrap(self: Arc<Self>, handler: Handler) -> Handler {
        match handler {
            Handler::Sync(inner) => Handler::Sync(Arc::new(move |ctx, args| {
                let args = self.check(args)?;
                inner(ctx, args)
            })),
            Handler::Async(inner) => {
                Handler::Async(Arc::new(move |ctx, args| match self.check(args) {
                    Ok(args) => inner(ctx, args),
                    Err(error) => Box::pin(std::future::ready(Err(error.into()))),
                }))
            }
        }
    }

    /// The arguments without `null`s for optional parameters, or every way they break the schema.
    fn check(&self, mut args: Map<String, Value>) -> Result<Map<String, Value>, InvalidArguments> {
        use jsonschema::error::ValidationErrorKind as Kind;

        args.retain(|name, value| !(value.is_null() && self.optional.contains(name)));
        let instance = Value::Object(args);
        let mut errors = Vec::new();
        for error in self.validator.iter_errors(&instance) {
            let pointer = error.instance_path().to_string();
            let depth = pointer.matches('/').count();
            let param = pointer
                .strip_prefix('/')
                .map(|rest| rest.split('/').next().unwrap_or(rest))
                .map(|segment| segment.replace("~1", "/").replace("~0", "~"));
            let sent = param.as_ref().and_then(|name| instance.get(name));
            let converted = match (error.kind(), param) {
                (Kind::Required { property }, None) => ArgumentError::Missing {
                    param: property
                        .as_str()
                        .map_or_else(|| property.to_string(), str::to_owned),
                    expected: None,
                    description: None,
                },
                (Kind::AdditionalProperties { unexpected }, None) => {
                    errors.extend(unexpected.iter().map(|param| ArgumentError::Unknown {
                        param: param.clone(),
                        valid: self.names.clone(),
                    }));
                    continue;
                }
                (_, Some(param)) if depth == 1 && sent == Some(&Value::Null) => {
                    ArgumentError::Null {
                        param,
                        expected: None,
                    }
                }
                (_, Some(param)) => ArgumentError::Invalid {
                    got: sent.map_or_else(|| "nothing".to_owned(), describe_value),
                    param,
                    expected: None,
                    reason: if depth > 1 {
                        format!("at `{pointer}`: {error}")
                    } else {
                        error.to_string()
                    },
                },
                (_, None) => ArgumentError::Schema {
                    pointer,
                    message: error.to_string(),
                },
            };
            errors.push(converted);
        }
        match (errors.is_empty(), instance) {
            (true, Value::Object(args)) => Ok(args),
            _ => Err(InvalidArguments::new(self.tool.clone(), errors)),
        }
    }
}
