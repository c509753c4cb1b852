//! The workspace the standard tools work in, from the command line's flags (shared by
//! `call` and `serve`).

use toolwright_std::Workspace;

use crate::cli::WorkspaceArgs;
use crate::ending::UsageError;

/// The workspace `args` describe: its root (default: the current directory) and what it
/// allows.
pub(crate) fn workspace(args: &WorkspaceArgs) -> Result<Workspace, UsageError> {
    let root = match &args.root {
        Some(root) => root.clone(),
        None => std::env::current_dir()
            .map_err(|e| UsageError(format!("cannot read the current directory: {e}")))?,
    };
    let workspace = Workspace::new(&root).map_err(|e| UsageError(e.to_string()))?;
    Ok(workspace
        .allow_commands(args.allow_commands.iter().cloned())
        .allow_shell(args.allow_shell)
        .allow_network(args.allow_network)
        .allow_git_writes(args.allow_git_writes)
        .allow_unconfined_commands(args.allow_unconfined))
}
