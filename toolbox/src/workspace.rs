//! The workspace the standard tools work in, from the command line's flags (shared by
//! `call` and `serve`).

use std::path::Path;

use toolwright_std::Workspace;
use toolwright_std::egress::{AllowList, Egress};
use toolwright_std::limits::Limits;

use crate::cli::WorkspaceArgs;
use crate::ending::UsageError;

/// The workspace `args` describe: its root (default: the current directory) and what it
/// allows; the egress proxy's refusals of `--allow-network-host` go to the audit log at
/// `audit`.
pub(crate) fn workspace(
    args: &WorkspaceArgs,
    audit: Option<&Path>,
) -> Result<Workspace, UsageError> {
    let root = match &args.root {
        Some(root) => root.clone(),
        None => std::env::current_dir()
            .map_err(|e| UsageError(format!("cannot read the current directory: {e}")))?,
    };
    let mut workspace = Workspace::new(&root).map_err(|e| UsageError(e.to_string()))?;
    if !args.allow_network_hosts.is_empty() {
        let allowed = AllowList::parse(&args.allow_network_hosts)
            .map_err(|e| UsageError(format!("--allow-network-host: {e}")))?;
        let mut egress = Egress::new(allowed).label("run_command");
        if let Some(sink) = crate::audit::egress_sink(audit)? {
            egress = egress.on_refusal(sink);
        }
        workspace = workspace.network_hosts(egress);
    }
    Ok(workspace
        .allow_commands(args.allow_commands.iter().cloned())
        .allow_shell(args.allow_shell)
        .allow_network(args.allow_network)
        .allow_git_writes(args.allow_git_writes)
        .allow_unconfined_commands(args.allow_unconfined)
        .limit_commands(command_limits(args)))
}

/// run_command's limits: the defaults, with each one the flags give instead.
fn command_limits(args: &WorkspaceArgs) -> Limits {
    let mut limits = Limits::run_command_default();
    if let Some(bytes) = args.command_memory {
        limits = limits.memory(bytes);
    }
    if let Some(cores) = args.command_cpu {
        limits = limits.cpu(cores);
    }
    if let Some(seconds) = args.command_cpu_time {
        limits = limits.cpu_time(seconds);
    }
    if let Some(count) = args.command_processes {
        limits = limits.processes(count);
    }
    if let Some(bytes) = args.command_write {
        limits = limits.write(bytes);
    }
    limits
}
