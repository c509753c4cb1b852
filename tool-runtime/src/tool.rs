//! The model of a tool: what it is called, what it does, what it takes, how safe it is,
//! and the adapter that runs it on a model's JSON arguments.

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{SafetyLevel, ToolContext, ToolError, ToolOutput};

/// The future an async tool handler returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A handler that runs on the calling thread.
pub(crate) type SyncHandler =
    Arc<dyn Fn(&ToolContext, Map<String, Value>) -> Result<ToolOutput, ToolError> + Send + Sync>;

/// A handler that returns a future.
pub(crate) type AsyncHandler = Arc<
    dyn Fn(ToolContext, Map<String, Value>) -> BoxFuture<Result<ToolOutput, ToolError>>
        + Send
        + Sync,
>;

/// Renders what a dangerous call would do, for the person approving it.
pub(crate) type PreviewFn =
    Arc<dyn Fn(&ToolContext, &Map<String, Value>) -> Result<String, ToolError> + Send + Sync>;

/// How a tool's function is run.
#[derive(Clone)]
pub(crate) enum Handler {
    /// A blocking function; the executor runs it off the async runtime's workers.
    Sync(SyncHandler),
    /// An async function.
    Async(AsyncHandler),
}

/// Where a tool was defined: the crate, module, file and line of its `#[tool]` function,
/// or of the code that built it at run time.
///
/// ```
/// use tool_runtime::ToolSource;
///
/// let source = ToolSource::new("my-crate", "my_crate::tools", "src/tools.rs", 12);
/// assert_eq!(source.to_string(), "my-crate (my_crate::tools) at src/tools.rs:12");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ToolSource {
    /// The Cargo package that defined the tool.
    #[serde(rename = "crate")]
    pub crate_name: Cow<'static, str>,
    /// The module path of the definition.
    pub module_path: Cow<'static, str>,
    /// The source file of the definition.
    pub file: Cow<'static, str>,
    /// The line of the definition.
    pub line: u32,
}

impl ToolSource {
    /// A source location.
    pub const fn new(
        crate_name: &'static str,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        ToolSource {
            crate_name: Cow::Borrowed(crate_name),
            module_path: Cow::Borrowed(module_path),
            file: Cow::Borrowed(file),
            line,
        }
    }
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}) at {}:{}",
            self.crate_name, self.module_path, self.file, self.line
        )
    }
}

/// One parameter of a tool, as the model sees it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use tool_runtime::{tool, register_all_tools};
///
/// /// Repeat a word.
/// #[tool]
/// fn repeat(
///     /// The word to repeat
///     word: String,
///     /// How many times
///     #[arg(default = 2)]
///     times: u32,
/// ) -> String {
///     word.repeat(times as usize)
/// }
///
/// let registry = register_all_tools().unwrap();
/// let tool = registry.get("repeat").unwrap();
/// let times = &tool.params()[1];
/// assert_eq!(times.name(), "times");
/// assert_eq!(times.description(), Some("How many times"));
/// assert!(!times.is_required());
/// assert_eq!(times.default_value(), Some(&serde_json::json!(2)));
/// assert_eq!(times.expected_type(), "integer >= 0");
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamInfo {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    required: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    secret: bool,
    schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default: Option<Value>,
    expected: String,
}

impl ParamInfo {
    /// The parameter's name in the JSON arguments.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameter's description, from its doc comment or `#[arg(description = "...")]`.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Whether the model must send it.
    pub fn is_required(&self) -> bool {
        self.required
    }

    /// Whether its value is redacted from logs and approval requests (`#[arg(secret)]`).
    pub fn is_secret(&self) -> bool {
        self.secret
    }

    /// The parameter's JSON Schema (as it appears under `properties`).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The default used when the parameter is absent, when it can be shown as JSON.
    pub fn default_value(&self) -> Option<&Value> {
        self.default.as_ref()
    }

    /// What the parameter accepts, in a few words (`string`, `array of integer`).
    pub fn expected_type(&self) -> &str {
        &self.expected
    }

    pub(crate) fn new(
        name: &str,
        description: Option<&str>,
        required: bool,
        secret: bool,
        schema: Value,
        default: Option<Value>,
    ) -> Self {
        ParamInfo {
            name: name.to_owned(),
            description: description.map(str::to_owned),
            required,
            secret,
            schema,
            default,
            expected: String::new(),
        }
    }

    pub(crate) fn set_expected(&mut self, expected: String) {
        self.expected = expected;
    }
}

/// The serializable description of a tool: everything a model or a registry snapshot
/// needs, without the code that runs it.
///
/// Two registrations of a tool are "the same tool" when their specs are equal.
///
/// ```
/// use tool_runtime::{SafetyLevel, ToolSpec};
///
/// let spec: ToolSpec = serde_json::from_value(serde_json::json!({
///     "name": "lookup_city",
///     "description": "Look up a city.",
///     "safety": "safe",
///     "input_schema": {"type": "object", "properties": {}}
/// })).unwrap();
/// assert_eq!(spec.safety, SafetyLevel::Safe);
/// assert!(spec.categories.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The snake_case name the model calls the tool by.
    pub name: String,
    /// What the tool does and when to use it, for the model.
    pub description: String,
    /// The tool's version, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// How much the tool may change the world.
    #[serde(default)]
    pub safety: SafetyLevel,
    /// Categories for filtering, e.g. `filesystem`.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Free-form tags for filtering and search.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The JSON Schema of the argument object.
    pub input_schema: Value,
    /// The JSON Schema of the structured output, if the tool has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// What a tool says about its parameters and output: its full spec and its parameters.
pub(crate) struct Described {
    pub(crate) spec: ToolSpec,
    pub(crate) params: Vec<ParamInfo>,
}

/// A `#[tool]`'s schemas are generated on first use, not when the tool is collected:
/// collecting thousands of tools at startup costs a pointer each.
pub(crate) enum Description {
    Ready(Described),
    Lazy {
        def: &'static crate::macro_support::ToolDef,
        cell: std::sync::OnceLock<Described>,
    },
}

pub(crate) struct ToolInner {
    pub(crate) name: String,
    pub(crate) description_text: String,
    pub(crate) version: Option<String>,
    pub(crate) safety: SafetyLevel,
    pub(crate) categories: Vec<String>,
    pub(crate) tags: Vec<String>,
    pub(crate) priority: i32,
    pub(crate) source: ToolSource,
    pub(crate) handler: Handler,
    pub(crate) preview: Option<PreviewFn>,
    pub(crate) described: Description,
    /// Exported schemas, one slot per format and option set (see `schema`).
    pub(crate) exports: [std::sync::OnceLock<Result<Value, String>>; crate::schema::EXPORT_SLOTS],
}

impl ToolInner {
    pub(crate) fn described(&self) -> &Described {
        match &self.described {
            Description::Ready(described) => described,
            Description::Lazy { def, cell } => {
                cell.get_or_init(|| crate::macro_support::describe(def))
            }
        }
    }
}

/// A tool a model can call: its spec, its parameters, where it was defined, and the
/// adapter that runs it. Cheap to clone.
///
/// Tools come from `#[tool]` functions (collected by
/// [`register_all_tools`](crate::register_all_tools)).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use serde_json::json;
/// use tool_runtime::{tool, register_all_tools, SafetyLevel};
///
/// /// Add two integers.
/// #[tool(categories(math))]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tool = register_all_tools().unwrap().get("add").unwrap();
/// assert_eq!(tool.description(), "Add two integers.");
/// assert_eq!(tool.safety(), SafetyLevel::Safe);
/// assert_eq!(tool.required(), ["a", "b"]);
/// let args = json!({"a": 2, "b": 3}).as_object().unwrap().clone();
/// assert_eq!(tool.call(args).await.unwrap().content, "5");
/// # }
/// ```
#[derive(Clone)]
pub struct Tool {
    pub(crate) inner: Arc<ToolInner>,
}

impl Tool {
    /// The snake_case name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What the tool does and when to use it.
    pub fn description(&self) -> &str {
        &self.inner.description_text
    }

    /// The tool's version, if it has one.
    pub fn version(&self) -> Option<&str> {
        self.inner.version.as_deref()
    }

    /// How much the tool may change the world.
    pub fn safety(&self) -> SafetyLevel {
        self.inner.safety
    }

    /// The tool's categories.
    pub fn categories(&self) -> &[String] {
        &self.inner.categories
    }

    /// The tool's tags.
    pub fn tags(&self) -> &[String] {
        &self.inner.tags
    }

    /// The tool's default priority in listings (higher first); see
    /// [`priority`](crate::priority) for the usual values.
    pub fn priority(&self) -> i32 {
        self.inner.priority
    }

    /// The JSON Schema of the argument object.
    pub fn input_schema(&self) -> &Value {
        &self.inner.described().spec.input_schema
    }

    /// The JSON Schema of the structured output, for tools that return [`Json<T>`](crate::Json).
    pub fn output_schema(&self) -> Option<&Value> {
        self.inner.described().spec.output_schema.as_ref()
    }

    /// The names of the parameters the model must send, in declaration order.
    pub fn required(&self) -> Vec<&str> {
        self.params()
            .iter()
            .filter(|param| param.is_required())
            .map(ParamInfo::name)
            .collect()
    }

    /// The tool's parameters, in declaration order.
    pub fn params(&self) -> &[ParamInfo] {
        &self.inner.described().params
    }

    /// Where the tool was defined.
    pub fn source(&self) -> &ToolSource {
        &self.inner.source
    }

    /// The tool's serializable spec.
    pub fn spec(&self) -> &ToolSpec {
        &self.inner.described().spec
    }

    /// Whether the tool's function is async (sync tools are run on a blocking thread by the
    /// executor).
    pub fn is_async(&self) -> bool {
        matches!(self.inner.handler, Handler::Async(_))
    }

    /// Whether the tool can describe a call before it runs (`#[tool(preview = ...)]`).
    pub fn has_preview(&self) -> bool {
        self.inner.preview.is_some()
    }

    /// What a call with `arguments` would do (a diff, a summary), for an approval request;
    /// `None` when the tool has no preview. The executor runs it before asking for approval
    /// of a dangerous call, and a preview that fails fails the call without asking.
    ///
    /// ```
    /// use serde_json::{json, Map, Value};
    /// use tool_runtime::{tool, register_all_tools, ToolContext, ToolError};
    ///
    /// fn rename_preview(_ctx: &ToolContext, args: &Map<String, Value>) -> Result<String, ToolError> {
    ///     Ok(format!("rename {} -> {}", args["from"], args["to"]))
    /// }
    ///
    /// /// Rename a thing.
    /// #[tool(safety = "dangerous", preview = rename_preview)]
    /// fn rename_thing(from: String, to: String) -> String { format!("{from} -> {to}") }
    ///
    /// let tool = register_all_tools().unwrap().get("rename_thing").unwrap();
    /// let args = json!({"from": "a", "to": "b"}).as_object().unwrap().clone();
    /// let preview = tool.preview(&ToolContext::new(), &args).unwrap().unwrap();
    /// assert_eq!(preview, r#"rename "a" -> "b""#);
    /// ```
    pub fn preview(
        &self,
        context: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Option<Result<String, ToolError>> {
        self.inner
            .preview
            .as_ref()
            .map(|preview| preview(context, arguments))
    }

    /// Runs the tool's adapter on a JSON argument object with an empty [`ToolContext`].
    ///
    /// No safety policy applies here: this is the direct call a test or the executor makes.
    /// A sync tool runs on the current thread.
    pub async fn call(&self, arguments: Map<String, Value>) -> Result<ToolOutput, ToolError> {
        self.call_with(ToolContext::new(), arguments).await
    }

    /// Runs the tool's adapter with `context`.
    pub async fn call_with(
        &self,
        context: ToolContext,
        arguments: Map<String, Value>,
    ) -> Result<ToolOutput, ToolError> {
        let result = match &self.inner.handler {
            Handler::Sync(handler) => handler(&context, arguments),
            Handler::Async(handler) => handler(context, arguments).await,
        };
        result.map_err(|error| self.describe_error(error))
    }

    /// Runs a sync tool's adapter on the current thread; `None` for an async tool.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_runtime::{tool, register_all_tools, ToolContext};
    ///
    /// /// Shout a word.
    /// #[tool]
    /// fn shout(word: String) -> String {
    ///     word.to_uppercase()
    /// }
    ///
    /// let tool = register_all_tools().unwrap().get("shout").unwrap();
    /// let args = json!({"word": "hi"}).as_object().unwrap().clone();
    /// let out = tool.call_blocking(&ToolContext::new(), args).unwrap().unwrap();
    /// assert_eq!(out.content, "HI");
    /// ```
    pub fn call_blocking(
        &self,
        context: &ToolContext,
        arguments: Map<String, Value>,
    ) -> Option<Result<ToolOutput, ToolError>> {
        match &self.inner.handler {
            Handler::Sync(handler) => {
                Some(handler(context, arguments).map_err(|error| self.describe_error(error)))
            }
            Handler::Async(_) => None,
        }
    }

    /// Names the tool and fills in each bad parameter's type and description.
    fn describe_error(&self, error: ToolError) -> ToolError {
        match error {
            ToolError::InvalidArguments(mut invalid) => {
                invalid.describe_with(self.name(), self.params());
                ToolError::InvalidArguments(invalid)
            }
            other => other,
        }
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .field("version", &self.version())
            .field("safety", &self.safety())
            .field("priority", &self.priority())
            .field("source", &self.source().to_string())
            .finish_non_exhaustive()
    }
}
