//! Tool lists that defer: a small core sent in full, the rest found by search.
//!
//! A registry of hundreds of tools costs context and accuracy when every schema goes in every
//! request. A [`DeferPlan`] says which tools stay loaded (the core: by name, category or
//! priority), how the rest are grouped, and which search the model gets:
//!
//! - **Anthropic Messages**: deferred tools carry `"defer_loading": true`, and the list starts
//!   with Anthropic's tool search tool (`tool_search_tool_bm25_20251119` or
//!   `tool_search_tool_regex_20251119`), or with our own `search_tools` tool whose results are
//!   `tool_reference` blocks
//!   (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool>).
//! - **OpenAI Responses**: deferred functions carry `"defer_loading": true`, grouped into
//!   `namespace` tools (by category, or by a mount's namespace prefix), with the `tool_search`
//!   tool, hosted or client-executed
//!   (<https://developers.openai.com/api/docs/guides/tools-tool-search>).
//! - **Chat Completions and Gemini**, which cannot defer: the core, our `search_tools`
//!   function, and the tools the model found so far ([`DeferPlan::loaded`]).
//!
//! [`export_deferred`] returns the list with the map back from the names the provider uses
//! (namespace and function name) to ours; [`parse`] reads a model's turn (calls, search
//! requests, `tool_reference` and `tool_search_output` results) against it, refusing any
//! name the list did not offer; [`reply`] writes the answer to a client-executed search.
//!
//! ```
//! use toolwright_core::serde_json::json;
//! use toolwright_core::{SafetyLevel, Tool};
//! use toolwright_formats::discovery::{DeferPlan, SearchTool, export_deferred};
//! use toolwright_formats::schema::Format;
//!
//! let tool = |name: &str, category: &str| {
//!     Tool::builder(name).description("A tool.").categories([category])
//!         .handler(|_| async { "ok" }).build().unwrap()
//! };
//! let tools = [tool("read_notes", "notes"), tool("create_issue", "tracker"), tool("close_issue", "tracker")];
//! let plan = DeferPlan::new().core_names(["read_notes"]).search(SearchTool::ProviderBm25);
//! let list = export_deferred(&tools, Format::Anthropic, &plan).unwrap();
//! assert_eq!(list.tools()[0]["type"], "tool_search_tool_bm25_20251119");
//! assert_eq!(list.tools()[1]["name"], "read_notes");
//! assert!(list.tools()[1].get("defer_loading").is_none());
//! assert_eq!(list.tools()[2]["defer_loading"], true);
//! assert_eq!(list.resolve(None, "close_issue").unwrap(), "close_issue");
//! assert!(list.resolve(None, "drop_database").is_err());
//! ```

// The layers, lowest first (no module imports one listed after it): plan, export, parse,
// reply.
//
// `plan` holds the options, the errors and the exported list with its name map; `export`
// builds the list per format; `parse` reads a model's turn against it; `reply` answers a
// search the application runs.
mod export;
mod plan;

pub mod parse;
pub mod reply;

pub use export::export_deferred;
pub use plan::{
    DeferPlan, DeferredTools, DiscoveryError, Grouping, MAX_ANTHROPIC_TOOLS, MAX_NAME_LEN,
    MAX_QUERY_LEN, OUR_SEARCH_TOOL, SearchTool,
};
