#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it; see ARCHITECTURE.md):
// encoding, safety, priority, mcp_header, param, meta, args, content, error, file_change, output, call, caller, client,
// catalog, state, context, asking, approval_rule, input_schema, tool, macro_support, definition, builder,
// completion, prompt, resource, skill, primitive_support, tool_set.
mod approval_rule;
mod args;
mod asking;
mod builder;
mod call;
mod caller;
mod catalog;
pub mod client;
pub mod completion;
mod content;
mod context;
mod definition;
pub mod encoding;
mod error;
pub mod file_change;
mod input_schema;
mod macro_support;
mod mcp_header;
mod meta;
mod output;
mod param;
mod primitive_support;
pub mod priority;
mod prompt;
mod resource;
mod safety;
mod skill;
mod state;
mod tool;
mod tool_set;

pub use approval_rule::ApprovalNeed;
pub use args::{ArgumentError, InvalidArguments, ToolParam};
pub use builder::ToolBuilder;
pub use call::{PendingApproval, ResultMetadata, ToolCall, ToolResult};
pub use caller::{Caller, CallerToken};
pub use catalog::{Catalog, CatalogEntry, CatalogHit, CatalogSource, NestedCalls};
pub use client::{ClientError, ClientPowers, Elicitation, LogLevel};
pub use completion::{
    AsyncCompletionFn, CompletionFn, CompletionFuture, CompletionRequest, Completions,
};
pub use content::{Audio, Content, EmbeddedResource, Image, ResourceData, ResourceLink, Text};
pub use context::{Progress, ToolContext};
pub use definition::ToolDefinitionError;
pub use error::ToolError;
pub use file_change::Preview;
pub use macro_support::linked_tools;
pub use meta::{ParseTaskSupportError, TaskSupport, ToolMeta, ToolSource};
pub use output::{IntoToolOutput, Json, ToolOutput};
pub use param::ParamInfo;
pub use primitive_support::{linked_prompts, linked_resources};
pub use prompt::{
    IntoPromptOutput, Prompt, PromptArgument, PromptArguments, PromptBuilder, PromptMessage,
    PromptOutput, PromptRole,
};
pub use resource::{
    IntoResourceContents, Resource, ResourceBody, ResourceBuilder, ResourceContents,
    ResourceRequest, ResourceUri, Subscription,
};
pub use safety::{ParseSafetyLevelError, SafetyLevel};
pub use skill::{Skill, SkillFile};
pub use state::{StateType, ToolState};
pub use tool::{BoxFuture, Tool, ToolSpec};
pub use tool_set::ToolSet;
pub use toolwright_names::uri_template::{UriTemplate, UriTemplateError, UriVariables};

pub use tokio_util::sync::CancellationToken;

/// The `schemars` this crate uses (1.x): argument and output types derive its `JsonSchema`.
/// Depend on the same version, or derive through this re-export without a dependency of
/// your own: `#[derive(toolwright_core::schemars::JsonSchema)] #[schemars(crate =
/// "toolwright_core::schemars")]`.
///
/// ```
/// use toolwright_core::schemars::{self, JsonSchema};
///
/// #[derive(JsonSchema)]
/// #[schemars(crate = "toolwright_core::schemars")]
/// struct Point { x: f64, y: f64 }
///
/// let schema = schemars::schema_for!(Point);
/// assert_eq!(schema.as_value()["properties"]["x"]["type"], "number");
/// ```
pub use schemars;
/// The `serde` this crate uses, with its derives (`#[serde(crate = "toolwright_core::serde")]`).
///
/// ```
/// #[derive(toolwright_core::serde::Deserialize)]
/// #[serde(crate = "toolwright_core::serde")]
/// struct Point { x: f64 }
///
/// let p: Point = toolwright_core::serde_json::from_str(r#"{"x": 1.5}"#).unwrap();
/// assert_eq!(p.x, 1.5);
/// ```
pub use serde;
/// The `serde_json` this crate uses: arguments and structured outputs are its `Value`s.
///
/// ```
/// let args = toolwright_core::serde_json::json!({"path": "README.md"});
/// assert!(args.is_object());
/// ```
pub use serde_json;

#[doc = include_str!("../docs/tool-attribute.md")]
pub use toolwright_macros::tool;

#[doc = include_str!("../docs/tool-set.md")]
pub use toolwright_macros::tool_set;

#[doc = include_str!("../docs/prompt-attribute.md")]
pub use toolwright_macros::prompt;

#[doc = include_str!("../docs/resource-attribute.md")]
pub use toolwright_macros::resource;

/// Derives what a type a tool takes or returns needs (serde's `Serialize` and
/// `Deserialize`, schemars' `JsonSchema`) through this crate's re-exports of serde and
/// schemars (schemars 1), so your manifest needs neither.
///
/// Field attributes work as with the derives written by hand (`#[serde(rename = "..")]`,
/// `#[schemars(range(min = 1))]`, doc comments as descriptions). The one option,
/// `crate = path`, names the crate that re-exports serde and schemars, when yours calls it
/// something else.
///
/// ```
/// use toolwright_core::{tool, tool_type};
///
/// /// A point on the plane.
/// #[tool_type]
/// struct Point {
///     /// Distance from the left edge
///     x: f64,
///     y: f64,
/// }
///
/// /// Distance of a point from the origin.
/// #[tool]
/// fn norm(point: Point) -> f64 {
///     point.x.hypot(point.y)
/// }
///
/// let tool = toolwright_core::linked_tools().find(|t| t.name() == "norm").unwrap();
/// assert!(tool.input_schema().to_string().contains("Distance from the left edge"));
/// ```
pub use toolwright_macros::tool_type;

// For the facade; not part of the API: the macros as it re-exports them, so the generated
// code names the crate the user wrote `#[tool]` through (the way
// `$crate` works for `macro_rules!`), without reading the user's manifest.
#[doc(hidden)]
pub mod __macros {
    pub use toolwright_macros::{
        facade_prompt, facade_resource, facade_tool, facade_tool_set, facade_tool_type,
    };
}

// For toolwright-formats and toolwright-runtime; not part of the API. (The other items
// they share are hidden methods: `Tool::origin`, `Tool::cache`, `ToolContext::with_progress`,
// `ToolContext::with_client_limit`, `ToolContext::with_question_signal`.)
#[doc(hidden)]
pub mod __runtime {
    pub use crate::args::{ValueChecker, summarize_value};
    pub use crate::input_schema::is_meaningful_bound;
}

// Not public API: the items generated code names (the facade
// re-exports this module).
#[doc(hidden)]
pub mod __private {
    pub use crate::approval_rule::IntoApproval;
    pub use crate::args::{Arguments, Take};
    pub use crate::file_change::IntoPreview;
    pub use crate::macro_support::{
        ApprovalRuleFn, AsyncHandlerFn, DefaultValue, DefaultViaSerialize, DefaultWithoutSerialize,
        LinkedTool, ParamOps, PreviewHandlerFn, SetApprovalFn, SetHandler, SetPreviewFn, SetTool,
        StaticHandler, SyncHandlerFn, TakeFor, TakeMoving, TakeThroughSerde, ToolDef, ToolFactory,
        assert_send, failed_future, missing_value, param, param_ops, state_of,
    };
    pub use crate::primitive_support::{
        LinkedPrompt, LinkedResource, PromptReturn, ResourceReturn, primitive_failed, prompt_arg,
        prompt_arg_opt, uri_var,
    };
    pub use crate::priority::DEFAULT as DEFAULT_PRIORITY;
    pub use crate::tool_set::{instance_of, shared_instance_of};
    pub use crate::{
        ApprovalNeed, BoxFuture, IntoToolOutput, ParamInfo, Preview, SafetyLevel, StateType,
        TaskSupport, ToolContext, ToolError, ToolMeta, ToolOutput, ToolParam, ToolSet, ToolSource,
    };
    pub use crate::{
        CompletionRequest, Completions, Prompt, PromptArgument, PromptArguments, PromptOutput,
        Resource, ResourceContents, ResourceRequest, ToolDefinitionError,
    };
    pub use crate::{ResourceBody, UriVariables};
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
