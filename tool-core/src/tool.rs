//! The model of a tool: its metadata, its parameters and schemas, and the handler that runs
//! it on a model's JSON arguments.
//!
//! The lowest layer of the runtime's tool model: it knows nothing of how tools are
//! declared (`#[tool]`, [`ToolBuilder`](crate::ToolBuilder)), kept (the registry), exported
//! (`schema`) or policed (the executor).

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::approval_rule::{ApprovalNeed, ApprovalRule};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::file_change::Preview;
use crate::meta::{TaskSupport, ToolMeta, ToolSource};
use crate::output::ToolOutput;
use crate::param::ParamInfo;
use crate::safety::SafetyLevel;
use crate::state::StateType;

/// The future an async tool's handler returns.
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

/// Renders what a call would do, for the person approving it.
pub(crate) type PreviewHandler =
    Arc<dyn Fn(&ToolContext, &Map<String, Value>) -> Result<Preview, ToolError> + Send + Sync>;

/// The function that runs a tool on the model's JSON arguments.
#[derive(Clone)]
pub(crate) enum Handler {
    /// A blocking function; the executor runs it on a thread of its own.
    Sync(SyncHandler),
    /// An async function.
    Async(AsyncHandler),
}

/// The serializable description of a tool: everything a model or a registry snapshot
/// needs, without the code that runs it.
///
/// Two registrations of a tool are "the same tool" when their specs are equal.
///
/// ```
/// use toolwright_core::{SafetyLevel, ToolSpec};
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

/// A tool's schemas and parameters: what is generated from its Rust types (or checked
/// from a runtime tool's JSON Schema).
pub(crate) struct ToolSchemas {
    pub(crate) input_schema: Value,
    pub(crate) output_schema: Option<Value>,
    pub(crate) params: Vec<ParamInfo>,
}

/// Makes a tool's schemas when they are first needed: collecting thousands of `#[tool]`s
/// at startup costs a pointer each, and a tool nobody lists never generates its schemas.
pub(crate) trait LazySchemas: Send + Sync {
    /// The schemas; called at most once per process for each tool.
    fn schemas(&self) -> ToolSchemas;
}

/// Where a tool's schemas come from.
pub(crate) enum Schemas {
    /// Already made (a runtime tool checks its schemas when it is built).
    Ready(ToolSchemas),
    /// Made on first use.
    Lazy(&'static dyn LazySchemas),
    /// Those of another tool of the same definition (a tool set's method bound to an
    /// instance shares the linked tool's schemas, made once per process).
    SameAs(Tool),
}

/// Everything a [`Tool`] is made of.
pub(crate) struct ToolParts {
    pub(crate) meta: ToolMeta,
    pub(crate) source: ToolSource,
    pub(crate) handler: Handler,
    pub(crate) preview: Option<PreviewHandler>,
    pub(crate) approval: Option<ApprovalRule>,
    pub(crate) schemas: Schemas,
    /// The state the executor must provide.
    pub(crate) state: Cow<'static, [StateType]>,
    /// The definition the tool comes from, when it is one of a `#[tool]`'s statics: tools
    /// of the same origin are one tool bound differently (see `ToolRegistry::register_set`).
    pub(crate) origin: Option<usize>,
    /// Whether its calls receive the caller's bearer token (`ToolBuilder::receives_caller_token`).
    pub(crate) caller_token: bool,
}

/// A tool's schemas, made or to be made.
enum SchemaCell {
    Ready(ToolSchemas),
    Lazy(&'static dyn LazySchemas, OnceLock<ToolSchemas>),
    SameAs(Tool),
}

struct ToolInner {
    meta: ToolMeta,
    source: ToolSource,
    handler: Handler,
    preview: Option<PreviewHandler>,
    approval: Option<ApprovalRule>,
    schemas: SchemaCell,
    state: Cow<'static, [StateType]>,
    origin: Option<usize>,
    caller_token: bool,
    spec: OnceLock<ToolSpec>,
    caches: Caches,
}

/// Values other modules derive from a tool and keep with it, one per type (the schema
/// exports, for example): the module that computes a value owns its type.
#[derive(Default)]
struct Caches {
    slots: RwLock<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

impl Caches {
    fn get_or_default<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let find = |slots: &[(TypeId, Arc<dyn Any + Send + Sync>)]| {
            slots
                .iter()
                .find(|(id, _)| *id == TypeId::of::<T>())
                .and_then(|(_, value)| Arc::clone(value).downcast::<T>().ok())
        };
        if let Some(found) = find(&self.slots.read().unwrap_or_else(PoisonError::into_inner)) {
            return found;
        }
        let mut slots = self.slots.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = find(&slots) {
            return found;
        }
        let value = Arc::new(T::default());
        slots.push((
            TypeId::of::<T>(),
            Arc::clone(&value) as Arc<dyn Any + Send + Sync>,
        ));
        value
    }
}

/// A tool a model can call: its spec, its parameters, where it was defined, and the
/// handler that runs it. Cheap to clone.
///
/// Tools come from `#[tool]` functions (collected by
/// `register_all_tools`).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use serde_json::json;
/// use toolwright_core::{tool, SafetyLevel};
///
/// /// Add two integers.
/// #[tool(categories(math))]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tool = toolwright_core::linked_tools().find(|t| t.name() == "add").unwrap();
/// assert_eq!(tool.description(), "Add two integers.");
/// assert_eq!(tool.safety(), SafetyLevel::Safe);
/// assert_eq!(tool.required(), ["a", "b"]);
/// let args = json!({"a": 2, "b": 3}).as_object().unwrap().clone();
/// assert_eq!(tool.call(args).await.unwrap().content, "5");
/// # }
/// ```
#[derive(Clone)]
pub struct Tool {
    inner: Arc<ToolInner>,
}

impl Tool {
    /// A tool from its parts (`#[tool]`'s static and [`ToolBuilder`](crate::ToolBuilder)
    /// both end here).
    pub(crate) fn from_parts(parts: ToolParts) -> Tool {
        let schemas = match parts.schemas {
            Schemas::Ready(ready) => SchemaCell::Ready(ready),
            Schemas::Lazy(lazy) => SchemaCell::Lazy(lazy, OnceLock::new()),
            Schemas::SameAs(tool) => SchemaCell::SameAs(tool),
        };
        Tool {
            inner: Arc::new(ToolInner {
                meta: parts.meta,
                source: parts.source,
                handler: parts.handler,
                preview: parts.preview,
                approval: parts.approval,
                schemas,
                state: parts.state,
                origin: parts.origin,
                caller_token: parts.caller_token,
                spec: OnceLock::new(),
                caches: Caches::default(),
            }),
        }
    }

    fn schemas(&self) -> &ToolSchemas {
        match &self.inner.schemas {
            SchemaCell::Ready(schemas) => schemas,
            SchemaCell::Lazy(lazy, cell) => cell.get_or_init(|| lazy.schemas()),
            SchemaCell::SameAs(tool) => tool.schemas(),
        }
    }

    /// The definition the tool comes from, for `#[tool]`s (one per static).
    // For toolwright-runtime (the registry tells a set's tool bound again from a clash); not
    // part of the API.
    #[doc(hidden)]
    pub fn origin(&self) -> Option<usize> {
        self.inner.origin
    }

    /// Whether the executor gives this tool's calls the caller's bearer token
    /// ([`Caller::token`](crate::Caller::token)); set by
    /// [`ToolBuilder::receives_caller_token`](crate::ToolBuilder::receives_caller_token).
    ///
    /// ```
    /// use toolwright_core::Tool;
    /// let tool = Tool::builder("t").description("T.").handler(|_: serde_json::Map<String, serde_json::Value>| async { "" }).build().unwrap();
    /// assert!(!tool.receives_caller_token());
    /// ```
    pub fn receives_caller_token(&self) -> bool {
        self.inner.caller_token
    }

    /// The value of type `T` kept with this tool, made with `T::default()` on first use.
    /// For modules that derive something from a tool once (the schema exports).
    // For toolwright-formats and toolwright-runtime (the export cache, the output checker); not
    // part of the API.
    #[doc(hidden)]
    pub fn cache<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        self.inner.caches.get_or_default::<T>()
    }

    /// The tool's name, description, version, safety, labels and priority.
    pub fn meta(&self) -> &ToolMeta {
        &self.inner.meta
    }

    /// The snake_case name the model calls the tool by.
    pub fn name(&self) -> &str {
        &self.inner.meta.name
    }

    /// What the tool does and when to use it.
    pub fn description(&self) -> &str {
        &self.inner.meta.description
    }

    /// The tool's version, if it has one.
    pub fn version(&self) -> Option<&str> {
        self.inner.meta.version.as_deref()
    }

    /// How much the tool may change the world.
    pub fn safety(&self) -> SafetyLevel {
        self.inner.meta.safety
    }

    /// The tool's categories.
    pub fn categories(&self) -> &[Cow<'static, str>] {
        &self.inner.meta.categories
    }

    /// The tool's tags.
    pub fn tags(&self) -> &[Cow<'static, str>] {
        &self.inner.meta.tags
    }

    /// The tool's default priority in listings (higher first); see
    /// [`priority`](crate::priority) for the usual values.
    pub fn priority(&self) -> i32 {
        self.inner.meta.priority
    }

    /// The JSON Schema of the argument object.
    pub fn input_schema(&self) -> &Value {
        &self.schemas().input_schema
    }

    /// The JSON Schema of the structured output, for tools that return [`Json<T>`](crate::Json).
    pub fn output_schema(&self) -> Option<&Value> {
        self.schemas().output_schema.as_ref()
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
        &self.schemas().params
    }

    /// Where the tool was defined.
    pub fn source(&self) -> &ToolSource {
        &self.inner.source
    }

    /// The tool's serializable spec.
    pub fn spec(&self) -> &ToolSpec {
        self.inner.spec.get_or_init(|| {
            let meta = &self.inner.meta;
            let labels =
                |labels: &[Cow<'static, str>]| labels.iter().map(|l| l.to_string()).collect();
            ToolSpec {
                name: meta.name.to_string(),
                description: meta.description.to_string(),
                version: meta.version.as_ref().map(|v| v.to_string()),
                safety: meta.safety,
                categories: labels(&meta.categories),
                tags: labels(&meta.tags),
                input_schema: self.input_schema().clone(),
                output_schema: self.output_schema().cloned(),
            }
        })
    }

    /// The types of state the tool needs from the executor: its tool set's `Self` (when it
    /// is a method collected at link time) and its `#[state]` parameters' types. An
    /// executor is built only when its state holds them all
    /// (`ExecutorBuilder::try_build`).
    ///
    /// <!-- A crate of its own: its tools need state, and doctests share a binary. -->
    /// ```rust,standalone_crate
    /// use toolwright_core::{tool, StateType};
    ///
    /// struct Greeting(String);
    ///
    /// /// Greet someone with the configured greeting.
    /// #[tool]
    /// fn greet(#[state] greeting: &Greeting, name: String) -> String {
    ///     format!("{}, {name}!", greeting.0)
    /// }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "greet").unwrap();
    /// assert_eq!(tool.required_state(), [StateType::of::<Greeting>()]);
    /// assert_eq!(tool.required(), ["name"]); // state is not in the schema
    /// ```
    pub fn required_state(&self) -> &[StateType] {
        &self.inner.state
    }

    /// Whether the tool's function is async (sync tools are run on a thread of their own by
    /// the executor).
    pub fn is_async(&self) -> bool {
        matches!(self.inner.handler, Handler::Async(_))
    }

    /// Whether the tool is sync and declares that it returns quickly and never blocks
    /// (`#[tool(inline)]`, [`ToolBuilder::inline`](crate::ToolBuilder::inline)), so an
    /// executor may run it on the async runtime's worker instead of handing it to a thread.
    /// Always `false` for an async tool, which runs on the caller's task anyway.
    ///
    /// ```
    /// use toolwright_core::tool;
    ///
    /// /// Add two numbers.
    /// #[tool(inline)]
    /// fn add_quickly(a: i64, b: i64) -> i64 { a + b }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "add_quickly").unwrap();
    /// assert!(tool.is_inline());
    /// ```
    pub fn is_inline(&self) -> bool {
        self.inner.meta.inline && !self.is_async()
    }

    /// Whether the tool can describe a call before it runs (`#[tool(preview = ...)]`).
    pub fn has_preview(&self) -> bool {
        self.inner.preview.is_some()
    }

    /// What a call with `arguments` would do (a diff, a summary), for an approval request;
    /// `None` when the tool has no preview. The executor runs it before asking for approval
    /// of a dangerous call, and a preview that fails fails the call without asking; once the
    /// approver has decided, it runs it again and runs the call only if the preview is the
    /// same (so a preview depends only on the arguments and what the call would change).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::{tool, ToolContext, ToolError};
    ///
    /// // The tool's parameters, read once for both, by reference and in order.
    /// fn rename_preview(_ctx: &ToolContext, from: &str, to: &str) -> Result<String, ToolError> {
    ///     Ok(format!("rename {from} -> {to}"))
    /// }
    ///
    /// /// Rename a thing.
    /// #[tool(safety = "dangerous", preview = rename_preview)]
    /// fn rename_thing(from: String, to: String) -> String { format!("{from} -> {to}") }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "rename_thing").unwrap();
    /// let args = json!({"from": "a", "to": "b"}).as_object().unwrap().clone();
    /// let preview = tool.preview(&ToolContext::new(), &args).unwrap().unwrap();
    /// assert_eq!(preview.text, "rename a -> b");
    /// ```
    pub fn preview(
        &self,
        context: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Option<Result<Preview, ToolError>> {
        self.inner
            .preview
            .as_ref()
            .map(|preview| preview(context, arguments).map_err(|e| self.name_parameters(e)))
    }

    /// Whether the tool decides per call if it needs approval (`#[tool(approval = ...)]`,
    /// [`ToolBuilder::approval`](crate::ToolBuilder::approval)).
    ///
    /// ```
    /// # use toolwright_core::Tool;
    /// let tool = Tool::builder("ping").description("Check that the service answers.")
    ///     .handler(|_| async { "pong" }).build().unwrap();
    /// assert!(!tool.has_approval_rule());
    /// ```
    pub fn has_approval_rule(&self) -> bool {
        self.inner.approval.is_some()
    }

    /// What the tool's approval rule says about a call with `arguments`: `None` when the
    /// tool has no rule; `Some(Err)` when the rule, or reading the arguments for it, failed
    /// (an argument error names the parameter, as the call's would).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::{tool, ApprovalNeed, ToolContext};
    ///
    /// // The tool's parameters, read once, by reference and in order.
    /// fn small_transfers_are_fine(_ctx: &ToolContext, _to: &str, cents: &u64) -> ApprovalNeed {
    ///     if *cents <= 1_000 { ApprovalNeed::NotRequired } else { ApprovalNeed::Required }
    /// }
    ///
    /// /// Send money.
    /// #[tool(safety = "dangerous", approval = small_transfers_are_fine)]
    /// fn send_money(to: String, cents: u64) -> String { format!("sent {cents} to {to}") }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "send_money").unwrap();
    /// let ctx = ToolContext::new();
    /// let small = json!({"to": "ada", "cents": 500}).as_object().unwrap().clone();
    /// assert_eq!(tool.approval(&ctx, &small).map(Result::unwrap), Some(ApprovalNeed::NotRequired));
    /// let large = json!({"to": "ada", "cents": 5_000}).as_object().unwrap().clone();
    /// assert_eq!(tool.approval(&ctx, &large).map(Result::unwrap), Some(ApprovalNeed::Required));
    /// let bad = json!({"to": "ada", "cents": "lots"}).as_object().unwrap().clone();
    /// let err = tool.approval(&ctx, &bad).unwrap().unwrap_err();
    /// assert!(err.to_string().contains("parameter `cents`"));
    /// ```
    pub fn approval(
        &self,
        context: &ToolContext,
        arguments: &Map<String, Value>,
    ) -> Option<Result<ApprovalNeed, ToolError>> {
        self.inner
            .approval
            .as_ref()
            .map(|rule| rule(context, arguments).map_err(|e| self.name_parameters(e)))
    }

    /// How long one call of the tool may run, when the tool says (`#[tool(timeout = "30s")]`,
    /// [`ToolBuilder::timeout`](crate::ToolBuilder::timeout)); `None` leaves it to the
    /// executor.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolwright_core::tool;
    ///
    /// /// Fetch a slow report.
    /// #[tool(timeout = "2m")]
    /// fn slow_report() -> String { "report".into() }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "slow_report").unwrap();
    /// assert_eq!(tool.timeout(), Some(Duration::from_secs(120)));
    /// ```
    pub fn timeout(&self) -> Option<Duration> {
        self.inner.meta.timeout
    }

    /// The most calls of the tool allowed, when the tool says (`#[tool(max_calls = 3)]`,
    /// [`ToolBuilder::max_calls`](crate::ToolBuilder::max_calls)); `None` for no limit of its
    /// own. The executor decides what the calls are counted over.
    ///
    /// ```
    /// use toolwright_core::tool;
    ///
    /// /// Send the weekly newsletter.
    /// #[tool(safety = "dangerous", max_calls = 1)]
    /// fn send_newsletter() -> String { "sent".into() }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "send_newsletter").unwrap();
    /// assert_eq!(tool.max_calls(), Some(1));
    /// ```
    pub fn max_calls(&self) -> Option<u32> {
        self.inner.meta.max_calls
    }

    /// Whether a call of the tool may run as a task the client polls
    /// (`#[tool(task = "required")]`, [`ToolBuilder::task_support`](crate::ToolBuilder::task_support));
    /// [`TaskSupport::Forbidden`](crate::TaskSupport::Forbidden) unless the tool says.
    ///
    /// ```
    /// use toolwright_core::{tool, TaskSupport};
    ///
    /// /// Rebuild the search index (minutes).
    /// #[tool(task = "required")]
    /// fn rebuild_index() -> String { "rebuilt".into() }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "rebuild_index").unwrap();
    /// assert_eq!(tool.task_support(), TaskSupport::Required);
    /// ```
    pub fn task_support(&self) -> TaskSupport {
        self.inner.meta.task_support
    }

    /// Runs the tool's handler on a JSON argument object with an empty [`ToolContext`].
    ///
    /// No safety policy applies here: this is the direct call a test or the executor makes.
    /// A sync tool runs on the current thread.
    pub async fn call(&self, arguments: Map<String, Value>) -> Result<ToolOutput, ToolError> {
        self.call_with(ToolContext::new(), arguments).await
    }

    /// Runs the tool's handler with `context`.
    pub async fn call_with(
        &self,
        context: ToolContext,
        arguments: Map<String, Value>,
    ) -> Result<ToolOutput, ToolError> {
        let result = match &self.inner.handler {
            Handler::Sync(handler) => handler(&context, arguments),
            Handler::Async(handler) => handler(context, arguments).await,
        };
        result.map_err(|error| self.name_parameters(error))
    }

    /// Runs a sync tool's handler on the current thread; `None` for an async tool.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright_core::{tool, ToolContext};
    ///
    /// /// Shout a word.
    /// #[tool]
    /// fn shout(word: String) -> String {
    ///     word.to_uppercase()
    /// }
    ///
    /// let tool = toolwright_core::linked_tools().find(|t| t.name() == "shout").unwrap();
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
                Some(handler(context, arguments).map_err(|error| self.name_parameters(error)))
            }
            Handler::Async(_) => None,
        }
    }

    /// The handler's future for `arguments`, as it is: its errors not yet described
    /// ([`describe_error`](Self::describe_error)), and for a sync tool a future that runs it
    /// when first polled. What an executor polls in place, without a second box.
    // For executors (toolwright-runtime); not part of the API.
    #[doc(hidden)]
    pub fn start_async(
        &self,
        context: ToolContext,
        arguments: Map<String, Value>,
    ) -> BoxFuture<Result<ToolOutput, ToolError>> {
        match &self.inner.handler {
            Handler::Async(handler) => handler(context, arguments),
            Handler::Sync(handler) => {
                let handler = Arc::clone(handler);
                Box::pin(async move { handler(&context, arguments) })
            }
        }
    }

    /// A sync tool's handler run here, its errors not yet described
    /// ([`describe_error`](Self::describe_error)); `None` for an async tool.
    // For executors (toolwright-runtime); not part of the API.
    #[doc(hidden)]
    pub fn call_sync_raw(
        &self,
        context: &ToolContext,
        arguments: Map<String, Value>,
    ) -> Option<Result<ToolOutput, ToolError>> {
        match &self.inner.handler {
            Handler::Sync(handler) => Some(handler(context, arguments)),
            Handler::Async(_) => None,
        }
    }

    /// An error of this tool's handler as a model should read it: an argument error names
    /// the tool and each bad parameter's expected type and description.
    // For executors (toolwright-runtime); not part of the API.
    #[doc(hidden)]
    pub fn describe_error(&self, error: ToolError) -> ToolError {
        self.name_parameters(error)
    }

    /// Names the tool in an argument error and fills in each bad parameter's expected type
    /// and description, which the handler does not know.
    fn name_parameters(&self, error: ToolError) -> ToolError {
        match error {
            ToolError::InvalidArguments(mut invalid) => {
                invalid.fill_in(self.name(), self.params());
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
