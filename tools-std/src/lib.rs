#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it): names, mime, expression,
// walk, quarantine, workspace, confine, files, skills, data, execution, sandbox, introspection.
mod confine;
pub mod data;
pub mod execution;
mod expression;
pub mod files;
pub mod introspection;
mod mime;
mod names;
mod quarantine;
pub mod sandbox;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub mod skills;
mod walk;
mod workspace;

pub use quarantine::Quarantined;
pub use workspace::{GlobError, PathError, Workspace, WorkspaceError};

use toolwright_runtime::{RegistryError, ToolRegistry};

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
