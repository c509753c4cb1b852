#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The tool model is toolwright-core, the formats toolwright-formats; this crate holds what
// handles tools at run time, in layers, lowest first (see ARCHITECTURE.md): search,
// registry, executor.
pub mod executor;
pub mod registry;
mod search;

pub use executor::{
    ApprovalDecision, ApprovalHandler, ApprovalRequest, CallOptions, Executor, ExecutorBuilder,
};
pub use registry::{
    NameClash, RegisterOptions, Registration, RegistryError, RegistrySnapshot, ToolFilter,
    ToolRegistry, register_all_tools,
};

// The tool model, under the names it always had here.
pub use toolwright_core::{
    ApprovalNeed, ArgumentError, Audio, BoxFuture, CancellationToken, Catalog, CatalogEntry,
    CatalogHit, CatalogSource, ClientError, ClientPowers, Content, Elicitation, EmbeddedResource,
    Image, IntoToolOutput, InvalidArguments, Json, LogLevel, ParamInfo, ParseSafetyLevelError,
    ParseTaskSupportError, Preview, ResourceData, ResourceLink, ResultMetadata, SafetyLevel,
    StateType, TaskSupport, Text, Tool, ToolBuilder, ToolCall, ToolContext, ToolDefinitionError,
    ToolError, ToolMeta, ToolOutput, ToolParam, ToolResult, ToolSet, ToolSource, ToolSpec,
    ToolState,
};
pub use toolwright_core::{file_change, priority};

#[doc(inline)]
pub use toolwright_core::client;

#[doc(inline)]
pub use toolwright_formats::providers;
#[doc(inline)]
pub use toolwright_formats::schema;

pub use toolwright_core::{schemars, serde, serde_json};

#[doc = include_str!("../docs/tool-attribute.md")]
pub use toolwright_core::__macros::runtime_tool as tool;

#[doc = include_str!("../docs/tool-set.md")]
pub use toolwright_core::__macros::runtime_tool_set as tool_set;

/// Derives `Serialize`, `Deserialize` and `JsonSchema` for a type a tool takes or returns,
/// through this crate's re-exports of serde and schemars (see `toolwright_core::tool_type`).
pub use toolwright_core::__macros::runtime_tool_type as tool_type;

// Not public API: the items generated code names (toolwright-core's; `#[tool]` in a crate
// that depends on this one names `::toolwright_core::__private`).
#[doc(hidden)]
pub use toolwright_core::__private;
