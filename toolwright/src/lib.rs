#![doc = include_str!("../README.md")]
#![doc = ""]
#![doc = include_str!("../docs/features.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// What the code `#[tool]` generates names: `toolwright::tool` is the macro's facade entry
// point, whose generated code names `::toolwright::__private`.
#[doc(hidden)]
pub use toolwright_core::__private;

pub use toolwright_core::{schemars, serde, serde_json};

#[doc = include_str!("../docs/tool-attribute.md")]
pub use toolwright_core::__macros::facade_tool as tool;

#[doc = include_str!("../docs/tool-set.md")]
pub use toolwright_core::__macros::facade_tool_set as tool_set;

/// Derives what a type a tool takes or returns needs (serde's `Serialize` and
/// `Deserialize`, schemars' `JsonSchema`, schemars 1) through this crate's re-exports, so
/// your manifest needs neither `serde` nor `schemars`.
///
/// Field attributes work as with the derives written by hand (`#[serde(rename = "..")]`,
/// `#[schemars(range(min = 1))]`, doc comments as descriptions). Deriving them yourself
/// works too, with `serde` and `schemars = "1"` in your manifest (schemars 0.8, which many
/// tutorials show, is another trait and does not fit). The one option, `crate = path`,
/// names this crate when your manifest renames it.
///
/// ```
/// use toolwright::{tool, tool_type};
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
/// let registry = toolwright::register_all_tools().unwrap();
/// let tool = registry.get("norm").unwrap();
/// assert!(tool.input_schema().to_string().contains("Distance from the left edge"));
/// ```
pub use toolwright_core::__macros::facade_tool_type as tool_type;

#[doc = include_str!("../docs/prompt-attribute.md")]
pub use toolwright_core::__macros::facade_prompt as prompt;

#[doc = include_str!("../docs/resource-attribute.md")]
pub use toolwright_core::__macros::facade_resource as resource;

pub use toolwright_core::{SafetyLevel, Tool, ToolCall, ToolContext, ToolError, ToolResult};
pub use toolwright_runtime::{Executor, ToolRegistry};

/// A registry of every `#[tool]` function linked into the program, from any crate.
///
/// Tools register themselves at link time; no list is kept by hand. Calling it again
/// returns an equal registry (the tools' schemas are built once).
///
/// **A crate of tools must be linked.** Rust links a dependency only if the code names it,
/// so a crate whose tools you want collected but whose functions you never call must be
/// named once, anywhere in the binary's crate (in a test or example, for a
/// dev-dependency):
///
/// ```ignore
/// use my_tools as _; // links my_tools, so its #[tool]s are collected
/// ```
///
/// When you forget, a debug build run by cargo (`cargo run`, `cargo test`) says so: the
/// first call warns once on stderr (never stdout, which an MCP server on stdio speaks)
/// about each dependency that depends on toolwright, defines `#[tool]`s and contributed
/// none, with the line to add. `TOOLWRIGHT_LINK_CHECK=off` silences it; release builds
/// never check, and the check never fails the call.
///
/// # Errors
///
/// [`RegistryError::DuplicateTools`](runtime::RegistryError::DuplicateTools) when linked
/// tools share names; the error lists every shared name with each definition's crate,
/// module, file and line.
///
/// ```
/// use toolwright::{register_all_tools, tool};
///
/// /// Count the words in a text.
/// #[tool]
/// fn count_words(text: String) -> usize {
///     text.split_whitespace().count()
/// }
///
/// let registry = register_all_tools()?;
/// assert!(registry.get("count_words").is_some());
/// # Ok::<(), toolwright::runtime::RegistryError>(())
/// ```
pub fn register_all_tools() -> Result<ToolRegistry, runtime::RegistryError> {
    toolwright_runtime::register_all_tools()
}

/// The tool model: what a crate of `#[tool]` functions compiles (`toolwright-core`).
///
/// A tool ([`Tool`]) is its metadata ([`ToolMeta`](model::ToolMeta)), the
/// schema of its parameters and a handler; the context ([`ToolContext`])
/// is what a running tool may use (cancellation, progress, shared state, the client's
/// powers); outputs turn into [`ToolOutput`](model::ToolOutput).
///
/// ```
/// use toolwright::model::{SafetyLevel, Tool};
///
/// let tool = Tool::builder("ping")
///     .description("Check that the service answers.")
///     .safety(SafetyLevel::Safe)
///     .handler(|_| async { "pong" })
///     .build()?;
/// assert_eq!(tool.name(), "ping");
/// # Ok::<(), toolwright::model::ToolDefinitionError>(())
/// ```
pub mod model {
    pub use toolwright_core::{
        ApprovalNeed, ArgumentError, Audio, BoxFuture, CancellationToken, Catalog, CatalogEntry,
        CatalogHit, CatalogSource, ClientError, ClientPowers, Content, Elicitation,
        EmbeddedResource, Image, IntoToolOutput, InvalidArguments, Json, LogLevel, ParamInfo,
        ParseSafetyLevelError, ParseTaskSupportError, Preview, ResourceData, ResourceLink,
        ResultMetadata, SafetyLevel, StateType, TaskSupport, Text, Tool, ToolBuilder, ToolCall,
        ToolContext, ToolDefinitionError, ToolError, ToolMeta, ToolOutput, ToolParam, ToolResult,
        ToolSet, ToolSource, ToolSpec, ToolState,
    };
    pub use toolwright_core::{
        AsyncCompletionFn, CompletionFn, CompletionFuture, CompletionRequest, Completions,
        IntoPromptOutput, IntoResourceContents, Prompt, PromptArgument, PromptArguments,
        PromptBuilder, PromptMessage, PromptOutput, PromptRole, Resource, ResourceBody,
        ResourceBuilder, ResourceContents, ResourceRequest, ResourceUri, Skill, SkillFile,
        Subscription, UriTemplate, UriTemplateError, UriVariables, linked_prompts,
        linked_resources,
    };
    pub use toolwright_core::{completion, file_change, priority};

    #[doc(inline)]
    #[doc = include_str!("../docs/client.md")]
    pub use toolwright_core::client;
}

/// Formats: tool schemas for each API and the calls read back from a model's response
/// (`toolwright-formats`).
///
/// ```
/// use toolwright::formats::schema::{Format, tools_to_schema};
/// use toolwright::model::Tool;
///
/// let tool = Tool::builder("ping")
///     .description("Answer pong.")
///     .handler(|_| async { "pong" })
///     .build()?;
/// let openai = tools_to_schema(&[tool], Format::OpenAiChat);
/// assert_eq!(openai[0]["function"]["name"], "ping");
/// # Ok::<(), toolwright::model::ToolDefinitionError>(())
/// ```
pub mod formats {
    pub use toolwright_core::{ResultMetadata, ToolCall, ToolResult};
    /// Deferred tool lists (Anthropic `defer_loading` and tool search, OpenAI Responses
    /// namespaces and `tool_search`, `search_tools` for Chat Completions and Gemini); the
    /// registry's half is `ToolRegistry::export_deferred` and `answer_search`.
    pub use toolwright_formats::discovery;
    #[doc(inline)]
    #[doc = include_str!("../docs/providers.md")]
    pub use toolwright_formats::providers;
    pub use toolwright_formats::schema;
}

/// The runtime: the registry that holds tools, and the executor that runs a model's calls
/// under a policy (`toolwright-runtime`).
///
/// ```
/// use toolwright::runtime::{ToolFilter, ToolRegistry};
/// use toolwright::model::{SafetyLevel, Tool};
///
/// let registry = ToolRegistry::new();
/// registry.register(
///     Tool::builder("ping")
///         .description("Answer pong.")
///         .safety(SafetyLevel::Safe)
///         .handler(|_| async { "pong" })
///         .build()?,
/// )?;
/// assert_eq!(registry.list(&ToolFilter::new()).len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub mod runtime {
    pub use toolwright_runtime::executor;
    pub use toolwright_runtime::executor::{
        ApprovalDecision, ApprovalHandler, ApprovalRequest, CallOptions, CallReport, Executor,
        ExecutorBuilder, Outcome,
    };
    pub use toolwright_runtime::registry;
    pub use toolwright_runtime::registry::{
        NameClash, RegisterOptions, Registration, RegistryError, RegistrySnapshot, ToolFilter,
        ToolRegistry, register_all_tools,
    };
}

/// The MCP server: serve an executor's tools over stdio, or over streamable HTTP with the
/// feature `mcp-http` (authentication: `mcp-auth`; Prometheus metrics: `mcp-metrics`)
/// (`toolwright-mcp`). To mount another MCP server's tools, see the `gateway` module (feature `mcp-upstream`).
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp {
    pub use toolwright_mcp::*;
}

/// The gateway: other MCP servers' tools mounted into a registry under your policy
/// (`gateway::upstream`), and a `gateway.toml` loaded with the pre-start checks of
/// `toolwright serve --config` (`gateway::config`); feature `mcp-upstream` (HTTP upstreams:
/// `mcp-upstream-http`; OAuth: `mcp-upstream-oauth`) (`toolwright-gateway`).
#[cfg(feature = "mcp-upstream")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-upstream")))]
pub mod gateway {
    pub use toolwright_gateway::*;
}

/// Standard tools that are safe to hand to a model: files in a workspace, data, commands
/// in a sandbox (`toolwright-std`).
#[cfg(feature = "std-tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "std-tools")))]
pub mod std_tools {
    pub use toolwright_std::*;
}

// The repository's README, its examples compiled and run as doctests here, where the crate
// they use is this one.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct RepositoryReadme;
