//! Tools defined at run time: a name, a JSON Schema and a closure, checked like `#[tool]`.

use std::borrow::Cow;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::approval_rule::{ApprovalNeed, ApprovalRule};
use crate::args::SchemaChecker;
use crate::context::ToolContext;
use crate::definition::{ToolDefinitionError, check_meta, check_schema, params_of};
use crate::error::ToolError;
use crate::file_change::Preview;
use crate::meta::{TaskSupport, ToolMeta, ToolSource};
use crate::output::IntoToolOutput;
use crate::safety::SafetyLevel;
use crate::state::StateType;
use crate::tool::{Handler, PreviewHandler, Schemas, Tool, ToolParts, ToolSchemas};

/// Builds a tool at run time from a JSON Schema and a closure over the argument object.
///
/// Made by [`Tool::builder`]. The arguments a model sends are validated against the input
/// schema before the handler runs; problems are reported like those of `#[tool]` functions.
/// The crate checks the JSON Schema tools' arguments use: types, `required`,
/// `additionalProperties`, `enum` / `const`, bounds and lengths, items and nested objects,
/// `anyOf` / `oneOf` / `allOf`, local `$ref`s, and `pattern` / `patternProperties` with the
/// `schema-validation` feature (see the `toolwright` crate's "Cargo features",
/// `toolwright/docs/features.md`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use serde_json::{json, Map, Value};
/// use toolwright_core::{SafetyLevel, Tool, ToolError};
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
    meta: ToolMeta,
    input_schema: Value,
    /// The input schema is someone else's, kept as it means (`foreign_schema`).
    foreign_schema: bool,
    output_schema: Option<Value>,
    source: ToolSource,
    handler: Option<Handler>,
    preview: Option<PreviewHandler>,
    approval: Option<ApprovalRule>,
    state: Vec<StateType>,
    /// Parameters sent in an HTTP header too: (parameter, header name).
    headers: Vec<(String, String)>,
    /// Whether its calls receive the caller's bearer token.
    caller_token: bool,
}

impl Tool {
    /// Starts a tool defined at run time; see [`ToolBuilder`].
    #[track_caller]
    pub fn builder(name: impl Into<String>) -> ToolBuilder {
        let caller = Location::caller();
        ToolBuilder {
            meta: ToolMeta::new(name.into(), ""),
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
            foreign_schema: false,
            output_schema: None,
            source: ToolSource {
                crate_name: Cow::Borrowed("(runtime)"),
                module_path: Cow::Borrowed(""),
                file: Cow::Owned(caller.file().to_owned()),
                line: caller.line(),
            },
            handler: None,
            preview: None,
            approval: None,
            state: Vec::new(),
            headers: Vec::new(),
            caller_token: false,
        }
    }
}

impl ToolBuilder {
    /// What the tool does and when to use it (required).
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("ping").description("Check that the service answers.")
    ///     .handler(|_| async { "pong" }).build().unwrap();
    /// assert_eq!(tool.description(), "Check that the service answers.");
    /// ```
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.meta.description = Cow::Owned(description.into());
        self
    }

    /// The JSON Schema of the argument object (default: no parameters).
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("greet").description("Greet someone.")
    ///     .input_schema(serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}))
    ///     .handler(|args| async move { format!("hi {}", args["name"]) }).build().unwrap();
    /// assert_eq!(tool.required(), ["name"]);
    /// ```
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self
    }

    /// The input schema is someone else's (a mounted MCP server's): it is served and
    /// checked as it means, not read for typos. A `required` name outside `properties` is
    /// then a key the rest of the schema validates (`additionalProperties`, say), not
    /// [`ToolDefinitionError::UnknownRequired`]. Every other check still applies.
    ///
    /// ```
    /// # use serde_json::json;
    /// # use toolwright_core::Tool;
    /// let schema = json!({"type": "object", "properties": {}, "required": ["id"],
    ///                     "additionalProperties": {"type": "string"}});
    /// let typo = Tool::builder("get").description("Get one.").input_schema(schema.clone())
    ///     .handler(|_| async { "ok" }).build();
    /// assert!(typo.is_err());
    /// let mounted = Tool::builder("get").description("Get one.").input_schema(schema.clone())
    ///     .foreign_schema(true).handler(|_| async { "ok" }).build().unwrap();
    /// assert_eq!(mounted.input_schema(), &schema);
    /// ```
    pub fn foreign_schema(mut self, foreign: bool) -> Self {
        self.foreign_schema = foreign;
        self
    }

    /// The JSON Schema of the structured output.
    ///
    /// ```
    /// # use toolwright_core::Tool;
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
    /// # use toolwright_core::{SafetyLevel, Tool};
    /// let tool = Tool::builder("purge").description("Delete old records.").safety(SafetyLevel::Dangerous)
    ///     .handler(|_| async { "purged" }).build().unwrap();
    /// assert_eq!(tool.safety(), SafetyLevel::Dangerous);
    /// ```
    pub fn safety(mut self, safety: SafetyLevel) -> Self {
        self.meta.safety = safety;
        self
    }

    /// Categories for filtering.
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("add").description("Add numbers.").categories(["math"])
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.categories(), ["math"]);
    /// ```
    pub fn categories<I, S>(mut self, categories: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.meta.categories = labels(categories);
        self
    }

    /// Tags for filtering and search.
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("add").description("Add numbers.").tags(["arithmetic"])
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.tags(), ["arithmetic"]);
    /// ```
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.meta.tags = labels(tags);
        self
    }

    /// The tool's version.
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("add").description("Add numbers.").version("2.1.0")
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.version(), Some("2.1.0"));
    /// ```
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.meta.version = Some(Cow::Owned(version.into()));
        self
    }

    /// The priority in listings, higher first (default: [`priority::COMMUNITY`](crate::priority::COMMUNITY)).
    ///
    /// ```
    /// # use toolwright_core::{priority, Tool};
    /// let tool = Tool::builder("add").description("Add numbers.").priority(priority::BUILTIN)
    ///     .handler(|_| async { "0" }).build().unwrap();
    /// assert_eq!(tool.priority(), 100);
    /// ```
    pub fn priority(mut self, priority: i32) -> Self {
        self.meta.priority = priority;
        self
    }

    /// Where the tool is defined (default: the `Tool::builder` call).
    ///
    /// ```
    /// # use toolwright_core::{Tool, ToolSource};
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

    /// A blocking handler; the executor runs it on a thread of its own (or on the async
    /// runtime's worker, when the tool is [`inline`](Self::inline)).
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

    /// Declares that the handler reads a `T` from the executor's state
    /// ([`ToolContext::require_state`]), so an executor without one is refused when it is
    /// built (`ExecutorBuilder::try_build`)
    /// rather than when a model first calls the tool.
    ///
    /// ```
    /// use toolwright_core::{StateType, Tool};
    ///
    /// struct Pool;
    /// let tool = Tool::builder("count_rows")
    ///     .description("Count the rows of the table.")
    ///     .needs_state::<Pool>()
    ///     .handler_with_context(|ctx, _| async move { ctx.require_state::<Pool>().map(|_| 0) })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(tool.required_state(), [StateType::of::<Pool>()]);
    /// ```
    pub fn needs_state<T: Send + Sync + 'static>(mut self) -> Self {
        let state = StateType::of::<T>();
        if !self.state.contains(&state) {
            self.state.push(state);
        }
        self
    }

    /// Gives this tool's calls the bearer token their caller presented
    /// ([`Caller::token`](crate::Caller::token) on the call's context), where the front end
    /// has one (an authenticated HTTP request). Off by default: every tool sees who calls
    /// ([`ToolContext::caller`](crate::ToolContext::caller)), only a tool built with this
    /// holds the caller's token, for acting as the caller elsewhere (toolwright-gateway
    /// exchanging it for a token of an upstream).
    ///
    /// ```
    /// use toolwright_core::Tool;
    /// let tool = Tool::builder("as_caller")
    ///     .description("Acts as the caller.")
    ///     .receives_caller_token()
    ///     .handler(|_: serde_json::Map<String, serde_json::Value>| async { "" })
    ///     .build()
    ///     .unwrap();
    /// assert!(tool.receives_caller_token());
    /// ```
    pub fn receives_caller_token(mut self) -> Self {
        self.caller_token = true;
        self
    }

    /// What a call would do, shown to the person approving a dangerous call (a diff, a
    /// summary, or a [`Preview`] with a file change's hunks). A preview that fails fails the
    /// call without asking.
    pub fn preview<F, P>(mut self, preview: F) -> Self
    where
        F: Fn(&ToolContext, &Map<String, Value>) -> Result<P, ToolError> + Send + Sync + 'static,
        P: Into<Preview>,
    {
        self.preview = Some(Arc::new(move |context, arguments| {
            preview(context, arguments).map(Into::into)
        }));
        self
    }

    /// The tool's own rule for whether a call needs approval, over the call's JSON arguments
    /// (as the model sent them; the handler sees them checked against the input schema). A
    /// rule that fails fails the call without asking; see [`Tool::approval`].
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::{ApprovalNeed, SafetyLevel, Tool, ToolContext};
    ///
    /// let tool = Tool::builder("drop_table")
    ///     .description("Drop a table.")
    ///     .safety(SafetyLevel::Dangerous)
    ///     .input_schema(json!({"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]}))
    ///     .approval(|_ctx, args| {
    ///         let scratch = args.get("table").and_then(|t| t.as_str()).is_some_and(|t| t.starts_with("tmp_"));
    ///         Ok(if scratch { ApprovalNeed::NotRequired } else { ApprovalNeed::Required })
    ///     })
    ///     .handler(|_| async { "dropped" })
    ///     .build()
    ///     .unwrap();
    /// let args = json!({"table": "tmp_import"}).as_object().unwrap().clone();
    /// assert_eq!(tool.approval(&ToolContext::new(), &args).map(Result::unwrap), Some(ApprovalNeed::NotRequired));
    /// ```
    pub fn approval<F>(mut self, rule: F) -> Self
    where
        F: Fn(&ToolContext, &Map<String, Value>) -> Result<ApprovalNeed, ToolError>
            + Send
            + Sync
            + 'static,
    {
        self.approval = Some(Arc::new(rule));
        self
    }

    /// How long one call may run (default: the executor's timeout). A zero duration is a
    /// [`ToolDefinitionError`] at [`build`](Self::build).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("crawl").description("Crawl a site.").timeout(Duration::from_secs(90))
    ///     .handler(|_| async { "done" }).build().unwrap();
    /// assert_eq!(tool.timeout(), Some(Duration::from_secs(90)));
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.meta.timeout = Some(timeout);
        self
    }

    /// Whether a sync tool returns quickly and never blocks, so an executor may run it on
    /// the async runtime's worker instead of a thread of its own (default `false`; what
    /// `#[tool(inline)]` says). It changes nothing for an async handler.
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("double").description("Double a number.").inline(true)
    ///     .sync_handler(|_ctx, args| args["n"].as_i64().unwrap_or(0) * 2).build().unwrap();
    /// assert!(tool.is_inline());
    /// ```
    pub fn inline(mut self, inline: bool) -> Self {
        self.meta.inline = inline;
        self
    }

    /// The most calls of the tool allowed (default: no limit of its own). Zero is a
    /// [`ToolDefinitionError`] at [`build`](Self::build).
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("deploy").description("Deploy the site.").max_calls(2)
    ///     .handler(|_| async { "deployed" }).build().unwrap();
    /// assert_eq!(tool.max_calls(), Some(2));
    /// ```
    pub fn max_calls(mut self, max_calls: u32) -> Self {
        self.meta.max_calls = Some(max_calls);
        self
    }

    /// Whether a call of the tool may run as a task the client polls (default
    /// [`TaskSupport::Forbidden`]): what `#[tool(task = "...")]` says for a `#[tool]`.
    ///
    /// ```
    /// # use toolwright_core::{TaskSupport, Tool};
    /// let tool = Tool::builder("export_all").description("Export every record.")
    ///     .task_support(TaskSupport::Required)
    ///     .handler(|_| async { "exported" }).build().unwrap();
    /// assert_eq!(tool.task_support(), TaskSupport::Required);
    /// ```
    pub fn task_support(mut self, support: TaskSupport) -> Self {
        self.meta.task_support = support;
        self
    }

    /// Marks `param` as sent in the HTTP header `Mcp-Param-<header>` as well as in the
    /// arguments (MCP SEP-2243, revision 2026-07-28: proxies route on it, and the server
    /// refuses a call whose header disagrees with the argument). The input schema's
    /// property gains `"x-mcp-header": header`; `build` checks that the property exists and
    /// is a string, an integer or a boolean, and that the name is an HTTP header name not
    /// already used (without regard to case). What `#[arg(header = "...")]` says for a
    /// `#[tool]`.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::Tool;
    ///
    /// let tool = Tool::builder("deploy")
    ///     .description("Deploy to a region.")
    ///     .input_schema(json!({"type": "object", "properties": {"region": {"type": "string"}}}))
    ///     .header("region", "Region")
    ///     .handler(|_| async { "ok" })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(tool.input_schema()["properties"]["region"]["x-mcp-header"], "Region");
    ///
    /// let err = Tool::builder("deploy").description("Deploy.")
    ///     .header("region", "Region").handler(|_| async { "ok" }).build().unwrap_err();
    /// assert!(err.to_string().contains("`region` is not among the input schema's properties"));
    /// ```
    pub fn header(mut self, param: impl Into<String>, header: impl Into<String>) -> Self {
        self.headers.push((param.into(), header.into()));
        self
    }

    /// Whether a task tool asks its first question (one [`ToolContext::elicit`], one
    /// [`ToolContext::ask_all`] batch...) in the call's own answer, then becomes a task on
    /// the call that brings the answer: a client of MCP's 2026-07-28 revision that declared
    /// the tasks extension gets an `InputRequiredResult` first, then a `CreateTaskResult`,
    /// and the task's run finds the answer (SEP-2663's composition with multi round-trip
    /// requests). The call runs the tool until that first question, so a tool that asks
    /// nothing runs in the call. Without it (the default), such a call is a task at once and
    /// its questions wait in the task's `inputRequests`. What `#[tool(ask_first)]` says.
    ///
    /// ```
    /// # use toolwright_core::{TaskSupport, Tool};
    /// let tool = Tool::builder("greet").description("Greet someone.")
    ///     .task_support(TaskSupport::Required)
    ///     .ask_first(true)
    ///     .handler(|_| async { "hi" }).build().unwrap();
    /// assert!(tool.meta().ask_first);
    /// ```
    pub fn ask_first(mut self, ask_first: bool) -> Self {
        self.meta.ask_first = ask_first;
        self
    }

    /// Checks the definition like `#[tool]` does at compile time, and builds the tool.
    pub fn build(mut self) -> Result<Tool, ToolDefinitionError> {
        let trimmed = self.meta.description.trim();
        if trimmed.len() != self.meta.description.len() {
            self.meta.description = Cow::Owned(trimmed.to_owned());
        }
        check_meta(&self.meta)?;
        let tool = self.meta.name.to_string();
        let invalid = |which, message: String| ToolDefinitionError::InvalidSchema {
            tool: tool.clone(),
            which,
            message,
        };
        check_schema(&self.input_schema).map_err(|m| invalid("input", m))?;
        for (param, header) in std::mem::take(&mut self.headers) {
            let property = self
                .input_schema
                .get_mut("properties")
                .and_then(|properties| properties.get_mut(&param))
                .and_then(Value::as_object_mut)
                .ok_or_else(|| {
                    invalid(
                        "input",
                        format!(
                            "`.header(\"{param}\", ..)`: `{param}` is not among the input \
                             schema's properties"
                        ),
                    )
                })?;
            property.insert(crate::mcp_header::KEYWORD.to_owned(), Value::String(header));
        }
        crate::mcp_header::check(&self.input_schema).map_err(|m| invalid("input", m))?;
        if let Some(output) = &self.output_schema {
            check_schema(output).map_err(|m| invalid("output", m))?;
        }
        let params = params_of(&tool, &self.input_schema, self.foreign_schema)?;
        let checker = SchemaChecker::new(&tool, &self.input_schema, &params)
            .map_err(|message| invalid("input", message))?;
        let handler = self
            .handler
            .ok_or_else(|| ToolDefinitionError::MissingHandler { tool: tool.clone() })?;
        Ok(Tool::from_parts(ToolParts {
            meta: self.meta,
            source: self.source,
            handler: checked(Arc::new(checker), handler),
            preview: self.preview,
            approval: self.approval,
            schemas: Schemas::Ready(ToolSchemas {
                input_schema: self.input_schema,
                output_schema: self.output_schema,
                params,
            }),
            state: Cow::Owned(self.state),
            origin: None,
            caller_token: self.caller_token,
        }))
    }
}

/// Labels as the metadata keeps them.
fn labels<I, S>(labels: I) -> Cow<'static, [Cow<'static, str>]>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    Cow::Owned(
        labels
            .into_iter()
            .map(|label| Cow::Owned(label.into()))
            .collect(),
    )
}

/// `handler`, run only on arguments that pass `checker`.
fn checked(checker: Arc<SchemaChecker>, handler: Handler) -> Handler {
    match handler {
        Handler::Sync(inner) => Handler::Sync(Arc::new(move |ctx, args| {
            let args = checker.check(args)?;
            inner(ctx, args)
        })),
        Handler::Async(inner) => {
            Handler::Async(Arc::new(move |ctx, args| match checker.check(args) {
                Ok(args) => inner(ctx, args),
                Err(error) => Box::pin(std::future::ready(Err(error.into()))),
            }))
        }
    }
}
