#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it): names, mime, expression,
// walk, quarantine, limits, egress, workspace, confine, files, skills, data, execution,
// code_mode, sandbox, introspection.
pub mod code_mode;
mod confine;
pub mod data;
pub mod egress;
pub mod execution;
mod expression;
pub mod files;
pub mod introspection;
pub mod limits;
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
pub use workspace::{DEFAULT_MAX_COMMAND_TIMEOUT, GlobError, PathError, Workspace, WorkspaceError};

use toolwright_runtime::{RegistryError, ToolRegistry};

/// The names of the tools in this crate, by category order.
pub const TOOL_NAMES: [&str; 17] = [
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
    "run_code",
    "calculate",
    "json_query",
    "current_time",
    "list_tools",
    "describe_tool",
    "search_tools",
];

/// A registry of every tool (and `#[prompt]` and `#[resource]`) linked into the binary, this
/// crate's included (naming this function is what links the crate), with the workspace's
/// files as the resource template [`files::FILES_URI_TEMPLATE`] (see
/// [`register_resources`]).
///
/// # Errors
///
/// As [`toolwright_runtime::register_all_tools`].
///
/// ```
/// let registry = toolwright_std::registry().unwrap();
/// assert!(toolwright_std::TOOL_NAMES.iter().all(|name| registry.get(name).is_some()));
/// assert!(registry.resolve_resource("file:///src/main.rs").is_some());
/// ```
pub fn registry() -> Result<ToolRegistry, RegistryError> {
    let registry = toolwright_runtime::register_all_tools()?;
    register_resources(&registry, None)?;
    Ok(registry)
}

/// Registers the workspace's files as the resource template [`files::FILES_URI_TEMPLATE`]
/// ([`files::workspace_files`]), with completions of the path when given the `workspace`
/// the executor's state holds ([`files::workspace_files_completing`]); it replaces one
/// registered before, so an application that knows its workspace after building the
/// registry calls it again.
///
/// # Errors
///
/// [`RegistryError::PrimitiveConflict`] cannot happen for this template once replaced; an
/// error means the registry refused the resource.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let workspace = toolwright_std::Workspace::new(dir.path()).unwrap();
/// let registry = toolwright_std::registry().unwrap();
/// toolwright_std::register_resources(&registry, Some(&workspace)).unwrap();
/// let files = registry.resource(toolwright_std::files::FILES_URI_TEMPLATE).unwrap();
/// assert_eq!(files.completable_variables().collect::<Vec<_>>(), ["path"]);
/// ```
pub fn register_resources(
    registry: &ToolRegistry,
    workspace: Option<&Workspace>,
) -> Result<(), RegistryError> {
    let files = match workspace {
        Some(workspace) => files::workspace_files_completing(workspace.clone()),
        None => files::workspace_files(),
    };
    if registry
        .resource(files::FILES_URI_TEMPLATE)
        .is_some_and(|known| !known.same_definition(&files))
    {
        registry.remove_resource(files::FILES_URI_TEMPLATE);
    }
    registry.register_resource(files)
}
