//! The gateway configuration as a library: the `gateway.toml` file (`[[upstream]]` tables),
//! loaded with the line of every mistake ([`GatewayConfig::load`]), the pre-start checks a
//! serving program runs ([`Checks`]), and its upstreams connected and mounted
//! ([`GatewayConfig::mount_all`], [`UpstreamConfig::mount`]).
//!
//! ```toml
//! [[upstream]]
//! namespace = "everything"          # tools are named everything_<tool>
//! command = "npx"                   # a stdio server, started by the gateway ...
//! args = ["-y", "@modelcontextprotocol/server-everything"]
//! env = { NODE_ENV = "production" }
//! # url = "https://mcp.example.com/mcp"   # ... or a streamable HTTP one (feature `http`)
//! # token_file = "/etc/toolwright/example.token"   (or token_env = "VAR"), or OAuth 2.0
//! # client credentials (feature `oauth`; the token endpoint found from the server's
//! # metadata):
//! # oauth = { client_id = "toolwright", client_secret_file = "/etc/toolwright/client.secret",
//! #           scopes = ["tools:read"] }   (or client_secret_env = "VAR"; resource, token_url)
//! # The secret goes only to a token endpoint on the server's own origin, or on that of an
//! # authorization server named here: authorization_servers = ["https://login.example.com"]
//! safety = "dangerous"              # its tools' level unless `tools` says (the default)
//! trusted = false                   # only a trusted server's readOnlyHint lowers a level
//! tools = { "echo" = "safe", "get*" = "cautious" }
//! pins = { "echo" = "<64 hex digits of the fingerprint>" }
//! # max_message_bytes = 16777216   # an HTTP upstream's largest message, before decoding
//! # max_tool_bytes = 65536          # the most bytes of one tool's definition (default 64 KiB)
//! # max_mount_bytes = 16777216      # ... of all of this upstream's (default 16 MiB)
//! # `tools` and `pins` match the name a client sees (`getWeather` and `get_weather` are
//! # one tool), so an upstream cannot rename a tool out of its pin or its override.
//! # A stdio server runs confined (feature `confine`), as run_command's commands do
//! # (toolwright-std's `Sandbox`): it sees the system's programs and libraries and only
//! # these paths (relative ones are taken from the file's directory), and no network
//! # unless allowed.
//! sandbox = { read = ["/opt/servers/everything"], write = ["/srv/shared"], network = false }
//! # unconfined = true               # ... or runs as we do, seeing all we see
//!
//! [serve]                           # the serving program's own options (the CLI's flags)
//! max_safety = "cautious"
//!
//! # Resources and prompts of our own, served beside the tools
//! # ([`GatewayConfig::register_declared`]); files are read once, from beside this file.
//! [[resources]]
//! uri = "notes://{id}"              # a template: `text` and `json` may use its variables
//! name = "note"
//! mime_type = "application/json"
//! json = { id = "{id}", body = "Note {id}" }   # or text = "...", file = "a.png", base64 = "..."
//! completions = { id = ["1", "2"] }
//!
//! [[prompts]]
//! name = "greet"
//! arguments = [{ name = "who", required = true, completions = ["world"] }]
//! messages = [{ role = "user", text = "Say hello to {who}." }]
//! # or image = "a.png", or resource = { uri = "{who}", text = "..." }
//! ```

// The layers, lowest first (no module imports one listed after it): error, supervision,
// file, confine, refusals, declared, load, checks, start.
mod checks;
mod confine;
mod declared;
mod error;
mod file;
mod load;
mod refusals;
mod start;
mod supervision;

pub use checks::Checks;
pub use error::{ConfigError, StartError};
pub use file::{GatewayConfig, UpstreamConfig, line_of};
pub use supervision::Supervision;
