//! Files, confined to the [`Workspace`]: read, list, inspect, search, find,
//! write (atomically), edit (with a diff), create directories, delete.
//!
//! Every access goes through the workspace's directory handle: a path is checked for its
//! form (no `..`, not absolute), then resolved beneath the root by the kernel (`openat2` with
//! `RESOLVE_BENEATH`, through `cap-std`), so a symbolic link or a directory swapped for one
//! while a tool runs cannot lead outside. Only regular files and directories are opened;
//! FIFOs, sockets and devices are refused without blocking. Files with more than one hard
//! link are not read (the other link may be outside the workspace, where no path check can
//! see it); writing to one replaces the link atomically and never writes through it.
//!
//! The module is layered, lowest first, and a file imports only files below it: `access`
//! (opening files and directories beneath the root, bounded reads), then `atomic` (the
//! shared write machinery: where a write lands, atomic writes, the text a preview is made
//! from, approved previews), then the tool families, which know nothing of one another:
//! `read` (`read_file`, `file_info`), `resource` (the files as the resource template
//! [`FILES_URI_TEMPLATE`]), `search` (`list_directory`, `search_files`,
//! `find_files`), `edit` (`write_file`, `edit_file`) and `manage` (`create_directory`,
//! `delete_path`).

// The layers, lowest first (no module imports one listed after it): access, atomic, read,
// resource, search, edit, manage.
#[cfg(doc)]
use crate::workspace::Workspace;

mod access;
mod atomic;
mod edit;
mod manage;
mod read;
mod resource;
mod search;

pub use edit::{
    edit_file, edit_file_approval, edit_file_preview, write_file, write_file_approval,
    write_file_preview,
};
pub use manage::{create_directory, delete_path, delete_path_preview};
pub use read::{FileInfo, file_info, read_file};
pub use resource::{FILES_URI_TEMPLATE, workspace_files, workspace_files_completing};
pub use search::{find_files, list_directory, search_files};
