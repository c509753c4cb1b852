#![doc = include_str!("../README.md")]
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

#[doc = include_str!("../docs/tool-attribute.md")]
pub use toolwright_macros::tool;

#[doc = include_str!("../docs/tool-set.md")]
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
