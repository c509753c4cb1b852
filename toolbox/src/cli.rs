//! The command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use tool_runtime::SafetyLevel;
use tool_runtime::schema::Format;

/// List LLM tools, export their schemas, call one, or serve them over MCP.
#[derive(Debug, Parser)]
#[command(name = "toolbox", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// Log more to stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the tools: a table of name, safety, categories and description, or JSON.
    List(ListArgs),
    /// Print the tools' schemas in a model API's format.
    Schema(SchemaArgs),
    /// Call one tool with JSON arguments, through the executor's safety policy.
    Call(CallArgs),
    /// Serve the tools over MCP (stdio by default, or streamable HTTP).
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only tools at or below this safety level: safe, cautious or dangerous.
    #[arg(long, value_name = "LEVEL")]
    pub(crate) max_safety: Option<SafetyLevel>,
    /// Only tools in this category (repeat for any of several).
    #[arg(long = "category", value_name = "CATEGORY")]
    pub(crate) categories: Vec<String>,
    /// Rank the tools by relevance to this query, best first.
    #[arg(long, value_name = "QUERY")]
    pub(crate) search: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The format: openai, openai-responses, anthropic, gemini or mcp.
    #[arg(long, value_name = "FORMAT")]
    pub(crate) format: Format,
    /// OpenAI strict mode (openai and openai-responses only).
    #[arg(long)]
    pub(crate) strict: bool,
    /// Only this tool (repeat for several); default: every tool.
    #[arg(long = "tool", value_name = "NAME")]
    pub(crate) tools: Vec<String>,
    /// Only tools at or below this safety level.
    #[arg(long, value_name = "LEVEL")]
    pub(crate) max_safety: Option<SafetyLevel>,
}

/// Where the file and command tools work, and what they may do.
#[derive(Debug, Args)]
pub(crate) struct WorkspaceArgs {
    /// The workspace root the file and command tools are confined to (default: the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    /// A program run_command may run (repeat for several).
    #[arg(long = "allow-command", value_name = "PROGRAM")]
    pub(crate) allow_commands: Vec<String>,
    /// Let run_command run shell scripts.
    #[arg(long)]
    pub(crate) allow_shell: bool,
    /// Let commands use the network (by default the kernel refuses them IP sockets and TCP
    /// connections).
    #[arg(long)]
    pub(crate) allow_network: bool,
    /// Let commands write inside the workspace's .git (read-only to them by default).
    #[arg(long)]
    pub(crate) allow_git_writes: bool,
    /// Run commands even where the kernel cannot confine them (no Landlock); by default
    /// run_command then refuses.
    #[arg(long)]
    pub(crate) allow_unconfined: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool to call.
    pub(crate) name: String,
    /// The arguments: JSON text, `@file` to read them from a file, or `-` for stdin
    /// (default `{}`).
    pub(crate) arguments: Option<String>,
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    /// Approve a dangerous tool without asking.
    #[arg(short, long)]
    pub(crate) yes: bool,
    /// Print the whole result as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Seconds before the call is stopped.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080).
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<SocketAddr>,
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    /// Only serve tools at or below this safety level (default: all).
    #[arg(long, value_name = "LEVEL")]
    pub(crate) max_safety: Option<SafetyLevel>,
    /// Run dangerous tools without approval when the client cannot ask its user (MCP
    /// elicitation); without it they are refused.
    #[arg(long)]
    pub(crate) allow_dangerous: bool,
    /// Seconds before a call is stopped (a call waiting for a free slot counts too).
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub(crate) timeout: u64,
    /// The most tool calls that run at once, over every client; more wait for a slot
    /// within their timeout.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_concurrent_calls: u64,
    /// The most threads sync tools run on; a call that timed out keeps its thread until its
    /// tool returns (the standard tools return promptly when cancelled).
    #[arg(long, value_name = "N", default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_sync_threads: u64,
}
