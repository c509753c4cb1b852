//! The command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use toolwright_core::SafetyLevel;
use toolwright_formats::schema::Format;

/// List LLM tools, export their schemas, call one, or serve them over MCP.
#[derive(Debug, Parser)]
#[command(name = "toolwright", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// Log more to stderr (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    /// How logs are written to stderr: text for people, json (one object per line) for a log
    /// collector.
    #[arg(long, global = true, value_enum, value_name = "FORMAT", default_value_t = LogFormat::Text)]
    pub(crate) log_format: LogFormat,
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    /// Lines for people.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the tools: a table of name, safety, categories and description, or JSON.
    List(ListArgs),
    /// Print the tools' schemas in a model API's format.
    Schema(SchemaArgs),
    /// Call one tool with JSON arguments, through the executor's safety policy.
    Call(Box<CallArgs>),
    /// Serve the tools over MCP (stdio by default, or streamable HTTP).
    Serve(Box<ServeArgs>),
    /// Print a shell's completion script for toolwright (see the book, "Installing").
    Completions(CompletionsArgs),
    /// Print toolwright's man page (roff), or a subcommand's.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    #[arg(value_name = "SHELL")]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// The subcommand whose page to print (toolwright-SUBCOMMAND(1)); default: toolwright(1).
    #[arg(value_name = "SUBCOMMAND")]
    pub(crate) subcommand: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// A gateway configuration (TOML): other MCP servers whose tools are mounted beside the
    /// standard tools, each under its namespace and policy (see the book, "Mounting other
    /// MCP servers")
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
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
    /// Never cut descriptions. By default the table fits the terminal (or $COLUMNS when
    /// set), and is not cut when stdout is not a terminal.
    #[arg(long, conflicts_with = "json")]
    pub(crate) wide: bool,
    /// List run_code too, as `serve --code-mode` offers it.
    #[arg(long)]
    pub(crate) code_mode: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// A gateway configuration (TOML): other MCP servers whose tools are mounted beside the
    /// standard tools, each under its namespace and policy (see the book, "Mounting other
    /// MCP servers")
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
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
    /// Export run_code too, as `serve --code-mode` offers it.
    #[arg(long)]
    pub(crate) code_mode: bool,
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
    /// Let commands reach this host through an egress proxy, and nothing else (repeat for
    /// several): HOST:PORT, *.DOMAIN:PORT, ADDRESS:PORT, CIDR:PORT ([::1]:443 for IPv6).
    /// Private, loopback, link-local and metadata addresses are refused unless listed; every
    /// refusal goes to the audit log. Ignored with --allow-network.
    #[arg(long = "allow-network-host", value_name = "HOST:PORT")]
    pub(crate) allow_network_hosts: Vec<String>,
    /// Let commands write inside the workspace's .git (read-only to them by default).
    #[arg(long)]
    pub(crate) allow_git_writes: bool,
    /// Run commands even where the kernel cannot confine them (no Landlock); by default
    /// run_command then refuses.
    #[arg(long)]
    pub(crate) allow_unconfined: bool,
    /// The memory of each command, all its processes together where a cgroup holds it
    /// (default: half the host's), e.g. 2GiB.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub(crate) command_memory: Option<u64>,
    /// The CPUs' worth of time each command may use, e.g. 1.5 (cgroup only; default: no
    /// limit).
    #[arg(long, value_name = "CORES", value_parser = cores)]
    pub(crate) command_cpu: Option<f64>,
    /// Seconds of CPU time each process of a command may use before the kernel kills it
    /// (default: no limit; the timeout bounds the command).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) command_cpu_time: Option<u64>,
    /// Processes and threads of each command at once (default: 4096).
    #[arg(long, value_name = "COUNT", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) command_processes: Option<u64>,
    /// The largest file a command may write, and the size of its temporary directory
    /// (default: 4GiB).
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub(crate) command_write: Option<u64>,
}

/// A size such as `512MiB`, for clap.
fn size(text: &str) -> Result<u64, String> {
    toolwright_std::limits::Limits::parse_size(text).map_err(|e| e.to_string())
}

/// A positive, finite number of CPUs, for clap.
fn cores(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(cores) if cores.is_finite() && cores > 0.0 => Ok(cores),
        _ => Err(format!(
            "`{text}` is not a number of CPUs above zero, e.g. 1.5"
        )),
    }
}

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// A gateway configuration (TOML): other MCP servers whose tools are mounted beside the
    /// standard tools, each under its namespace and policy (see the book, "Mounting other
    /// MCP servers")
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
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
    /// Append a JSON line for the call to FILE when the tool is cautious or dangerous: the
    /// tool, its arguments, the approval, the outcome and the error.
    #[arg(long, value_name = "FILE")]
    pub(crate) audit_log: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) code_mode: crate::code_mode::CodeModeArgs,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("jwks").args(["jwks_file", "jwks_url"]).requires("jwt_issuer")))]
pub(crate) struct ServeArgs {
    /// A gateway configuration (TOML): other MCP servers whose tools are mounted beside the
    /// standard tools, each under its namespace and policy (see the book, "Mounting other
    /// MCP servers")
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080). A
    /// non-loopback address needs authentication (or --insecure-no-auth).
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<SocketAddr>,
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    /// Serve the skills of this directory (the MCP skills extension, SEP-2640): each folder
    /// below it holding a SKILL.md is a skill, its files resources at skill://PATH/FILE.
    /// Read once at start; links out of a skill's folder and special files are left out
    /// (and reported).
    #[arg(long, value_name = "DIR")]
    pub(crate) skills: Option<PathBuf>,
    /// Only serve tools at or below this safety level (default: all).
    #[arg(long, value_name = "LEVEL")]
    pub(crate) max_safety: Option<SafetyLevel>,
    /// Append a JSON line to FILE for every cautious and dangerous call: the tool, its
    /// arguments, the approval, the outcome and the error.
    #[arg(long, value_name = "FILE")]
    pub(crate) audit_log: Option<PathBuf>,
    /// Run dangerous tools without approval when the client cannot ask its user (MCP
    /// elicitation), or when its token lacks the tools:approve scope; without it they are
    /// refused.
    #[arg(long)]
    pub(crate) allow_dangerous: bool,
    /// How tools/list shows the tools: full (every tool) or search (the --core tools, then
    /// search_tools, describe_tool and call_tool, with instructions saying the list is
    /// partial; every tool stays callable under its own policy).
    #[arg(long, value_name = "MODE", value_enum, default_value_t = crate::serve_discovery::DiscoveryMode::Full)]
    pub(crate) discovery: crate::serve_discovery::DiscoveryMode,
    /// With --discovery search, a tool always listed: its NAME, `category:NAME` or
    /// `priority:N` (at least N); repeat for several.
    #[arg(long = "core", value_name = "CHOICE", value_parser = crate::serve_discovery::parse_core)]
    pub(crate) core: Vec<crate::serve_discovery::CoreChoice>,
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
    /// Seconds a task (a call of a long-running tool, for MCP clients that poll) is kept from
    /// its creation, result included; a call still running then is cancelled. With
    /// --session-store, tasks are kept in the same Redis, so every replica answers for them.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) task_ttl: u64,
    #[command(flatten)]
    pub(crate) code_mode: crate::code_mode::CodeModeArgs,
    #[command(flatten)]
    pub(crate) http_options: HttpArgs,
}

/// How `serve --http` authenticates, what it accepts, and how it stops.
#[derive(Debug, Args)]
pub(crate) struct HttpArgs {
    /// Accept the bearer tokens of this file: one per line, optionally followed by
    /// space-separated scopes (tools:safe, tools:cautious, tools:dangerous, tools:approve;
    /// none: all of them). Lines starting with # are comments.
    #[arg(long, value_name = "PATH", requires = "http")]
    pub(crate) auth_token_file: Option<PathBuf>,
    /// Accept the bearer token in this environment variable (with every scope). Tokens are
    /// never given on the command line.
    #[arg(long, value_name = "VAR", requires = "http")]
    pub(crate) auth_token_env: Option<String>,
    /// Accept JWT access tokens signed by a key of this JWKS file (needs --jwt-issuer).
    #[arg(
        long,
        value_name = "PATH",
        requires = "http",
        conflicts_with = "jwks_url"
    )]
    pub(crate) jwks_file: Option<PathBuf>,
    /// Accept JWT access tokens signed by a key published at this URL (https; needs
    /// --jwt-issuer).
    #[arg(long, value_name = "URL", requires = "http")]
    pub(crate) jwks_url: Option<String>,
    /// The issuer (iss) JWTs must name; also listed as the authorization server in the
    /// metadata.
    #[arg(long, value_name = "ISS", requires = "jwks")]
    pub(crate) jwt_issuer: Option<String>,
    /// The audience (aud) JWTs must name (default: --resource-url).
    #[arg(long, value_name = "AUD", requires = "jwks")]
    pub(crate) jwt_audience: Option<String>,
    /// The public URL clients reach this server at (the https URL of your proxy, say): the
    /// resource of the OAuth metadata; its host is accepted as Host.
    #[arg(long, value_name = "URL", requires = "http")]
    pub(crate) resource_url: Option<String>,
    /// Serve a non-loopback address without authentication: anyone who can reach the port
    /// can call the tools. Only on a network you trust.
    #[arg(
        long,
        requires = "http",
        conflicts_with_all = ["auth_token_file", "auth_token_env", "jwks_file", "jwks_url"]
    )]
    pub(crate) insecure_no_auth: bool,
    /// Accept requests from web pages of this origin (scheme://host or scheme://host:port,
    /// :* for any port; repeat for several). Requests from other origins are refused.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    pub(crate) allow_origins: Vec<String>,
    /// Accept requests for this Host (name or name:port; repeat for several), besides
    /// localhost, 127.0.0.1, ::1 and the address served.
    #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
    pub(crate) allow_hosts: Vec<String>,
    /// The largest request body accepted, in bytes; larger ones get 413.
    #[arg(long, value_name = "N", default_value_t = 4 * 1024 * 1024, requires = "http")]
    pub(crate) max_body_bytes: usize,
    /// The most MCP sessions open at once; one more gets 503.
    #[arg(long, value_name = "N", default_value_t = 1024, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_sessions: u64,
    /// Seconds a session may go without a request before it ends.
    #[arg(long, value_name = "N", default_value_t = 600, requires = "http")]
    pub(crate) session_idle_secs: u64,
    /// No sessions: every request is answered on its own, with JSON (for several servers
    /// behind a load balancer). Clients of MCP 2026-07-28 still approve dangerous calls and
    /// answer questions (multi round-trip requests); older clients cannot.
    #[arg(long, requires = "http")]
    pub(crate) stateless: bool,
    /// The key (32 bytes or more, e.g. `openssl rand -hex 32`) that seals the state of a
    /// call waiting for its caller's approval or answer (MCP 2026-07-28 multi round-trip
    /// requests), read from this file (mode 600, outside the workspace: whoever holds the
    /// key can forge an approval). Replicas behind one load balancer need the same key, and
    /// the session store, which records each state's use for all of them (a key without it
    /// is refused). Default: a random key per process.
    #[arg(
        long,
        value_name = "PATH",
        requires = "http",
        conflicts_with = "request_state_key_env"
    )]
    pub(crate) request_state_key_file: Option<PathBuf>,
    /// Like --request-state-key-file, with the key read from this environment variable.
    /// Commands run by the tools do not inherit it.
    #[arg(long, value_name = "VAR", requires = "http")]
    pub(crate) request_state_key_env: Option<String>,
    /// Share MCP sessions with other replicas through Redis, so any replica behind a load
    /// balancer serves any session: `redis://HOST:PORT/DB` or `redis+unix:///PATH`. Redis
    /// also records which approval states were used, so each is used once on any replica
    /// (with --stateless, that is all it holds). A URL
    /// with a password is refused here (every user of the machine can read a process's
    /// arguments): give it with --session-store-file or --session-store-env.
    #[arg(
        long,
        value_name = "URL",
        requires = "http",
        conflicts_with_all = ["session_store_file", "session_store_env"]
    )]
    pub(crate) session_store: Option<String>,
    /// Like --session-store, with the URL (password and all) read from this file (mode 600,
    /// outside the workspace). It is never printed; logs show it with the password hidden.
    #[arg(
        long,
        value_name = "PATH",
        requires = "http",
        conflicts_with = "session_store_env"
    )]
    pub(crate) session_store_file: Option<PathBuf>,
    /// Like --session-store, with the URL (password and all) read from this environment
    /// variable. Commands run by the tools do not inherit it.
    #[arg(long, value_name = "VAR", requires = "http")]
    pub(crate) session_store_env: Option<String>,
    /// The most connections open at once; one more closes an idle, slow or listening
    /// connection of the caller holding the most, else is answered 503 and closed. Keep it
    /// below `ulimit -n`.
    #[arg(long, value_name = "N", default_value_t = 512, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_connections: u64,
    /// Seconds a client has to send a request's whole header; a connection that does not is
    /// closed.
    #[arg(long, value_name = "SECS", default_value_t = 10, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) header_read_timeout: u64,
    /// Seconds a connection may go without a byte either way before it is closed (event
    /// streams send a keep-alive every 15 s).
    #[arg(long, value_name = "SECS", default_value_t = 300, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) connection_idle_secs: u64,
    /// The most MCP sessions one caller (a static token, or a JWT's issuer and subject) may
    /// have open; one more gets 429.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_sessions_per_principal: u64,
    /// The most tool calls one caller may have running at once; one more is refused at once
    /// with a JSON-RPC error (keep it below --max-concurrent-calls).
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_calls_per_principal: u64,
    /// The most connections one caller may hold (counted once a request on a connection
    /// authenticates); one more closes an idle one of its own, or gets 429. When the server
    /// is full, a connection of the caller holding the most is closed for a newcomer.
    #[arg(long, value_name = "N", default_value_t = 64, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_connections_per_principal: u64,
    /// The most connections one client address may hold before a request on them
    /// authenticates (all of them, without authentication); one more gets 429. Behind a
    /// reverse proxy, raise it to the proxy's pool of connections.
    #[arg(long, value_name = "N", default_value_t = 128, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_connections_per_address: u64,
    /// The most subscriptions/listen streams one caller (a token, or a client address
    /// without authentication) may have open; one more gets 429 at once.
    #[arg(long, value_name = "N", default_value_t = 8, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_listen_streams_per_principal: u64,
    /// Seconds a request's whole body has to arrive; a slower one gets 408 and its
    /// connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) body_read_timeout: u64,
    /// Without authentication, the most MCP sessions one client address may have open;
    /// one more gets 429.
    #[arg(long, value_name = "N", default_value_t = 256, requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_sessions_per_address: u64,
    /// On SIGTERM or Ctrl-C, seconds to let calls in flight finish (new requests get 503
    /// meanwhile) before stopping.
    #[arg(long, value_name = "SECS", default_value_t = 30, requires = "http")]
    pub(crate) drain_timeout: u64,
}
