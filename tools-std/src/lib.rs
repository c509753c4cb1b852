//! A standard set of tools that is safe to hand to a language model: files confined to a
//! workspace, search, edits with diffs, commands, maths, time, and introspection.
//!
//! Every tool is an ordinary `#[tool]` function, so this crate is also an example of how to
//! write tools. Link it and they are collected with the rest:
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolwright_runtime::{Executor, ToolCall};
//! use toolwright_std::Workspace;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("hello.txt"), "hello\nworld\n").unwrap();
//!
//! let executor = Executor::builder(Arc::new(toolwright_std::registry().unwrap()))
//!     .state(Workspace::new(dir.path()).unwrap())
//!     .build();
//! let result = executor.execute(ToolCall::new("1", "read_file", json!({"path": "hello.txt"}))).await;
//! assert_eq!(result.content, "hello\nworld\n");
//! # }
//! ```
//!
//! | Category | Tools |
//! |---|---|
//! | `filesystem` | `read_file`, `list_directory`, `file_info`, `search_files`, `find_files` (safe); `create_directory` (cautious); `write_file`, `edit_file`, `delete_path` (dangerous) |
//! | `execution` | `run_command` (dangerous) |
//! | `data` | `calculate`, `json_query`, `current_time` (safe) |
//! | `introspection` | `list_tools`, `describe_tool`, `search_tools` (safe) |
//!
//! The file and command tools need a [`Workspace`] in the executor's state; without one they
//! fail with a message saying how to add it.
//!
//! The dangerous tools ask for approval, except where the workspace says a call is harmless:
//! `write_file` and `edit_file` inside
//! [`Workspace::writable_without_approval`] globs, and `run_command` for the read-only
//! commands of [`Workspace::run_without_approval`] (their rules are
//! [`files::write_file_approval`], [`files::edit_file_approval`] and
//! [`execution::run_command_approval`], read through `Tool::approval`).

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

mod confine;
pub mod data;
pub mod execution;
mod expression;
pub mod files;
pub mod introspection;
mod names;
mod quarantine;
mod walk;
mod workspace;

pub use quarantine::Quarantined;
pub use workspace::{GlobError, PathError, Workspace, WorkspaceError};

use toolwright_runtime::{RegistryError, ToolContext, ToolError, ToolRegistry};

/// The names of the tools in this crate, by category order.
pub const TOOL_NAMES: [&str; 16] = [
    "read_file",
    "list_directory",
    "file_info",
    "search_files",
    "find_files",
    "write_file",
    "edit_file",
    "create_directory",
    "delete_path",
    "run_command",
    "calculate",
    "json_query",
    "current_time",
    "list_tools",
    "describe_tool",
    "search_tools",
];

/// A registry of every tool linked into the binary, this crate's included (naming this
/// function is what links the crate).
///
/// # Errors
///
/// As [`toolwright_runtime::register_all_tools`].
///
/// ```
/// let registry = toolwright_std::registry().unwrap();
/// assert!(toolwright_std::TOOL_NAMES.iter().all(|name| registry.get(name).is_some()));
/// ```
pub fn registry() -> Result<ToolRegistry, RegistryError> {
    toolwright_runtime::register_all_tools()
}

// The README's examples, compiled and run as doctests (here, where every crate they use is
// a dependency).
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The workspace from the executor's state, or a failure saying how to configure one.
pub(crate) fn workspace(ctx: &ToolContext) -> Result<&Workspace, ToolError> {
    ctx.state::<Workspace>().ok_or_else(|| {
        ToolError::new(
            "no workspace is configured, so file and command tools are unavailable; the \
             application adds one with `Executor::builder(..).state(toolwright_std::Workspace::new(root)?)` \
             (or `toolwright --root DIR`)",
        )
    })
}

impl From<PathError> for ToolError {
    fn from(error: PathError) -> Self {
        ToolError::from_error(error)
    }
}
