//! Give Rust functions to language models as tools.
//!
//! Write a plain function, put [`#[tool]`](tool) on it, and it becomes a tool: its
//! description comes from the doc comment, the JSON Schema of its parameters from their
//! Rust types and doc comments, and a handler reads the model's JSON arguments into typed
//! values, with errors a model can act on. Every `#[tool]` linked into the binary, from any
//! crate, is collected by [`register_all_tools`].
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use toolwright_runtime::{tool, register_all_tools, SafetyLevel, ToolFilter};
//!
//! /// Convert a temperature from Celsius to Fahrenheit.
//! #[tool(categories(math), tags("units"))]
//! fn celsius_to_fahrenheit(
//!     /// Degrees Celsius
//!     celsius: f64,
//! ) -> f64 {
//!     celsius * 9.0 / 5.0 + 32.0
//! }
//!
//! // The function is still an ordinary function.
//! assert_eq!(celsius_to_fahrenheit(100.0), 212.0);
//!
//! let registry = register_all_tools()?;
//! let tool = registry.get("celsius_to_fahrenheit").unwrap();
//! assert_eq!(tool.input_schema()["properties"]["celsius"]["description"], "Degrees Celsius");
//!
//! let args = json!({"celsius": 100.0}).as_object().unwrap().clone();
//! assert_eq!(tool.call(args).await?.content, "212.0");
//!
//! let bad = json!({"celsius": "warm"}).as_object().unwrap().clone();
//! let err = tool.call(bad).await.unwrap_err();
//! assert!(err.to_string().contains("invalid value for parameter `celsius`: expected number"));
//!
//! let math = registry.list(&ToolFilter::new().max_safety(SafetyLevel::Safe).categories(["math"]));
//! assert!(math.iter().any(|t| t.name() == "celsius_to_fahrenheit"));
//! # Ok(()) }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it; see ARCHITECTURE.md):
// safety, priority, param, meta, args, content, error, output, call, client, catalog, context, approval_rule,
// input_schema, tool,
// macro_support, definition, builder, search, registry, schema, providers, executor.
mod approval_rule;
mod args;
mod builder;
mod call;
mod catalog;
pub mod client;
mod content;
mod context;
mod definition;
mod error;
pub mod executor;
pub mod file_change;
mod input_schema;
mod macro_support;
mod meta;
mod output;
mod param;
pub mod priority;
pub mod providers;
pub mod registry;
mod safety;
pub mod schema;
mod search;
mod tool;
mod tool_set;

pub use approval_rule::ApprovalNeed;
pub use args::{ArgumentError, InvalidArguments, ToolParam};
pub use builder::ToolBuilder;
pub use call::{ResultMetadata, ToolCall, ToolResult};
pub use catalog::{Catalog, CatalogEntry, CatalogHit, CatalogSource};
pub use client::{ClientError, ClientPowers, Elicitation, LogLevel};
pub use content::{Audio, Content, EmbeddedResource, Image, ResourceData, ResourceLink, Text};
pub use context::{StateType, ToolContext, ToolState};
pub use definition::ToolDefinitionError;
pub use error::ToolError;
pub use executor::{
    ApprovalDecision, ApprovalHandler, ApprovalRequest, CallOptions, Executor, ExecutorBuilder,
};
pub use file_change::Preview;
pub use meta::{ParseTaskSupportError, TaskSupport, ToolMeta, ToolSource};
pub use output::{IntoToolOutput, Json, ToolOutput};
pub use param::ParamInfo;
pub use registry::{
    NameClash, RegisterOptions, Registration, RegistryError, RegistrySnapshot, ToolFilter,
    ToolRegistry, register_all_tools,
};
pub use safety::{ParseSafetyLevelError, SafetyLevel};
pub use tool::{BoxFuture, Tool, ToolSpec};
pub use tool_set::ToolSet;

pub use tokio_util::sync::CancellationToken;

/// The `schemars` this crate uses (1.x): argument and output types derive its `JsonSchema`.
/// Depend on the same version, or derive through this re-export without a dependency of
/// your own: `#[derive(toolwright_runtime::schemars::JsonSchema)] #[schemars(crate =
/// "toolwright_runtime::schemars")]`.
///
/// ```
/// use toolwright_runtime::schemars::{self, JsonSchema};
///
/// #[derive(JsonSchema)]
/// #[schemars(crate = "toolwright_runtime::schemars")]
/// struct Point { x: f64, y: f64 }
///
/// let schema = schemars::schema_for!(Point);
/// assert_eq!(schema.as_value()["properties"]["x"]["type"], "number");
/// ```
pub use schemars;
/// The `serde` this crate uses, with its derives (`#[serde(crate = "toolwright_runtime::serde")]`).
///
/// ```
/// #[derive(toolwright_runtime::serde::Deserialize)]
/// #[serde(crate = "toolwright_runtime::serde")]
/// struct Point { x: f64 }
///
/// let p: Point = toolwright_runtime::serde_json::from_str(r#"{"x": 1.5}"#).unwrap();
/// assert_eq!(p.x, 1.5);
/// ```
pub use serde;
/// The `serde_json` this crate uses: arguments and structured outputs are its `Value`s.
///
/// ```
/// let args = toolwright_runtime::serde_json::json!({"path": "README.md"});
/// assert!(args.is_object());
/// ```
pub use serde_json;

/// Turns a function into a tool a language model can call.
///
/// ```
/// use toolwright_runtime::{tool, ToolContext, ToolError};
///
/// /// Read a UTF-8 text file inside the workspace.
/// #[tool(safety = "safe", categories(filesystem), tags("files"))]
/// async fn read_text(
///     ctx: &ToolContext,
///     /// Path relative to the workspace root
///     path: String,
///     /// Maximum number of bytes to return
///     max_bytes: Option<u64>,
/// ) -> Result<String, ToolError> {
///     let _ = (ctx, max_bytes);
///     Err(ToolError::new(format!("`{path}` is not in this example")))
/// }
/// ```
///
/// Options: `name = "..."` (default: the function's name), `description = "..."` (default:
/// the doc comment), `safety = "safe" | "cautious" | "dangerous"` (default `safe`),
/// `categories(ident, ...)`, `tags("...", ...)`, `required("...", ...)`, `version = "x.y.z"`,
/// `priority = N`, `crate = path::to::toolwright_runtime`, `preview = path::to::fn` (what a
/// dangerous call would do, shown to the approver: a function
/// `fn(&ToolContext, &P1, ..., &Pn) -> Result<String, ToolError>` over the tool's parameters
/// in order, read from the arguments once for both; it may return a [`Preview`] with a file
/// change's hunks instead, or either without the `Result`; see [`Tool::preview`]), `approval =
/// path::to::fn` (whether one call needs approval, see below), `timeout = "30s"`,
/// `max_calls = N` and `task = "optional" | "required"` (see below). Put it on free functions only (not methods; a
/// [`#[tool_set]`](tool_set) takes `#[tool]` methods). Per parameter:
/// `#[arg(rename = "...", description = "...", default = expr, secret)]`.
///
/// # Per-tool policy: approval rules, timeouts, call limits
///
/// `approval = rule` lets a tool say, call by call, whether it needs approval: `rule` is
/// `fn(&ToolContext, &P1, ..., &Pn) -> ApprovalNeed` (or `-> Result<ApprovalNeed, ToolError>`) over the
/// tool's parameters by reference, in order, read once like a preview's, so a renamed or
/// retyped parameter breaks the build at the rule's path. The executor asks it through
/// [`Tool::approval`]:
///
/// ```
/// use serde_json::json;
/// use toolwright_runtime::{tool, register_all_tools, ApprovalNeed, ToolContext};
///
/// fn only_big_refunds(_ctx: &ToolContext, _order: &str, cents: &u64) -> ApprovalNeed {
///     if *cents > 10_000 { ApprovalNeed::Required } else { ApprovalNeed::NotRequired }
/// }
///
/// /// Refund an order.
/// #[tool(safety = "dangerous", approval = only_big_refunds)]
/// fn refund_order(order: String, cents: u64) -> String { format!("refunded {cents} on {order}") }
///
/// let tool = register_all_tools().unwrap().get("refund_order").unwrap();
/// let args = json!({"order": "A-1", "cents": 250}).as_object().unwrap().clone();
/// let approval = tool.approval(&ToolContext::new(), &args).unwrap().unwrap();
/// assert_eq!(approval, ApprovalNeed::NotRequired);
/// ```
///
/// `timeout = "..."` is how long one call may run: a positive whole number with `ms`, `s`,
/// `m` or `h`, checked at compile time ([`Tool::timeout`]):
///
/// ```
/// use std::time::Duration;
/// use toolwright_runtime::{tool, register_all_tools};
///
/// /// Render the monthly report.
/// #[tool(timeout = "45s")]
/// fn render_report() -> String { "report".into() }
///
/// let tool = register_all_tools().unwrap().get("render_report").unwrap();
/// assert_eq!(tool.timeout(), Some(Duration::from_secs(45)));
/// ```
///
/// `max_calls = N` is the most calls of the tool allowed, a positive integer literal
/// ([`Tool::max_calls`]):
///
/// ```
/// use toolwright_runtime::{tool, register_all_tools};
///
/// /// Open a support ticket.
/// #[tool(safety = "cautious", max_calls = 3)]
/// fn open_ticket(summary: String) -> String { format!("opened: {summary}") }
///
/// let tool = register_all_tools().unwrap().get("open_ticket").unwrap();
/// assert_eq!(tool.max_calls(), Some(3));
/// ```
///
/// `task = "optional"` or `"required"` says a call may run as a task: a front end that
/// supports it (an MCP server, for clients that declare the tasks extension) answers the
/// call at once with a handle the client polls, while the tool runs on; `"required"`
/// tools are refused to clients that cannot poll ([`Tool::task_support`], [`TaskSupport`];
/// default: never a task):
///
/// ```
/// use toolwright_runtime::{tool, register_all_tools, TaskSupport};
///
/// /// Re-encode every video of the library (hours).
/// #[tool(task = "required", safety = "cautious")]
/// async fn reencode_library() -> String { "done".into() }
///
/// let tool = register_all_tools().unwrap().get("reencode_library").unwrap();
/// assert_eq!(tool.task_support(), TaskSupport::Required);
/// ```
///
/// What the executor does with each is its policy ([`Executor`]); the tool only declares.
///
/// # Long work stops when the call does
///
/// A call that times out or is cancelled (by the caller, or by an MCP client's
/// `notifications/cancelled`) cancels its [`ToolContext`]. An async tool is simply dropped
/// at its next `.await`. A sync tool runs on a thread of its own that cannot be stopped from
/// outside: until it returns, its thread counts against the executor's
/// [`max_sync_threads`](ExecutorBuilder::max_sync_threads) as abandoned. So a sync tool
/// that can take long checks [`ToolContext::is_cancelled`] every few milliseconds of work
/// (it is cheap) and returns:
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use serde_json::json;
/// use toolwright_runtime::{tool, register_all_tools, Executor, ToolCall, ToolContext, ToolError};
///
/// /// Count the primes below a bound.
/// #[tool]
/// fn count_primes(ctx: &ToolContext, below: u64) -> Result<u64, ToolError> {
///     let mut count = 0;
///     for n in 2..below {
///         if n % 4096 == 0 && ctx.is_cancelled() {
///             return Err(ToolError::new("cancelled"));
///         }
///         if (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0) {
///             count += 1;
///         }
///     }
///     Ok(count)
/// }
///
/// # #[tokio::main] async fn main() {
/// let executor = Executor::builder(Arc::new(register_all_tools().unwrap()))
///     .timeout(Duration::from_millis(50))
///     .build();
/// let call = ToolCall::new("1", "count_primes", json!({"below": u64::MAX}));
/// let result = executor.execute(call).await;
/// assert!(result.error.unwrap().contains("timed out"));
/// // The tool saw the cancellation and gave its thread back.
/// while executor.metrics().sync_threads.busy > 0 {
///     tokio::task::yield_now().await;
/// }
/// assert_eq!(executor.metrics().sync_threads.abandoned, 0);
/// # }
/// ```
pub use toolwright_macros::tool;

/// Makes the `#[tool]` methods of an `impl` block tools that share one instance of the type:
/// a database pool, an HTTP client, a cache.
///
/// Each `#[tool]` method takes `&self` (or no `self`), sync or async, and has everything a
/// `#[tool]` function has: its doc comment as the description, `#[arg]`, `#[state]`, every
/// option of `#[tool(...)]` (a `preview` or an `approval` rule may name a method of the set,
/// called on the same instance) and the same compile-time checks. Methods without `#[tool]`
/// are left alone.
///
/// The set's tools are collected at link time like any tool
/// ([`register_all_tools`]) and find the instance in the executor's state, so the
/// executor must be given one: [`ExecutorBuilder::try_build`](executor::ExecutorBuilder::try_build)
/// refuses to build without it, naming every tool that needs it. A program that makes
/// several instances binds each with [`ToolRegistry::register_set`] (or [`ToolSet::tools`]).
///
/// The one option is `#[tool_set(crate = path::to::toolwright_runtime)]`, for a re-exported
/// runtime. The `impl` must be inherent (not `impl Trait for Type`) and not generic.
///
/// <!-- A crate of its own: its tools need state, and doctests share a binary. -->
/// ```rust,standalone_crate
/// use std::collections::BTreeMap;
/// use std::sync::{Arc, Mutex};
/// use serde_json::json;
/// use toolwright_runtime::{tool, tool_set, register_all_tools, Executor, ToolCall, ToolError};
///
/// /// A tiny key-value store the tools share.
/// #[derive(Default)]
/// struct Notes {
///     entries: Mutex<BTreeMap<String, String>>,
/// }
///
/// #[tool_set]
/// impl Notes {
///     /// Save a note under a key, replacing any earlier note.
///     #[tool(safety = "cautious")]
///     fn save_note(&self, /// The note's key
///                  key: String, /// The text to keep
///                  text: String) -> String {
///         self.entries.lock().unwrap().insert(key.clone(), text);
///         format!("saved `{key}`")
///     }
///
///     /// Read the note saved under a key.
///     #[tool]
///     async fn read_note(&self, key: String) -> Result<String, ToolError> {
///         let entries = self.entries.lock().unwrap();
///         entries.get(&key).cloned().ok_or_else(|| ToolError::new(format!("no note `{key}`")))
///     }
/// }
///
/// # #[tokio::main] async fn main() {
/// let registry = Arc::new(register_all_tools().unwrap());
/// // Without a `Notes` in its state, the executor is not built.
/// assert!(Executor::builder(Arc::clone(&registry)).try_build().is_err());
///
/// let executor = Executor::builder(registry).state(Notes::default()).build();
/// executor.execute(ToolCall::new("1", "save_note", json!({"key": "a", "text": "hello"}))).await;
/// let result = executor.execute(ToolCall::new("2", "read_note", json!({"key": "a"}))).await;
/// assert_eq!(result.content, "hello");
/// # }
/// ```
pub use toolwright_macros::tool_set;

// Not public API: the items generated code names.
#[doc(hidden)]
pub mod __private {
    pub use crate::approval_rule::IntoApproval;
    pub use crate::args::Arguments;
    pub use crate::file_change::IntoPreview;
    pub use crate::macro_support::{
        ApprovalRuleFn, AsyncHandlerFn, DefaultValue, DefaultViaSerialize, DefaultWithoutSerialize,
        LinkedTool, ParamOps, PreviewHandlerFn, SetApprovalFn, SetHandler, SetPreviewFn, SetTool,
        StaticHandler, SyncHandlerFn, ToolDef, ToolFactory, assert_send, failed_future,
        missing_value, param, param_ops, state_of,
    };
    pub use crate::priority::DEFAULT as DEFAULT_PRIORITY;
    pub use crate::tool_set::{instance_of, shared_instance_of};
    pub use crate::{
        ApprovalNeed, BoxFuture, IntoToolOutput, ParamInfo, Preview, SafetyLevel, StateType,
        TaskSupport, ToolContext, ToolError, ToolMeta, ToolOutput, ToolParam, ToolSet, ToolSource,
    };
    pub use inventory;
    pub use schemars::{Schema, SchemaGenerator};
    pub use serde_json::{Map, Value};
    pub use std::borrow::Cow;
    pub use std::boxed::Box;
    pub use std::option::Option::{self, None, Some};
    pub use std::result::Result::{self, Err, Ok};
    pub use std::string::String;
    pub use std::sync::Arc;
    pub use std::time::Duration;
    pub use std::vec::Vec;
}
