//! What can go wrong between us and an upstream MCP server (its own module: the connection
//! and the OAuth client both make these).

/// Something went wrong between us and an upstream MCP server.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum UpstreamError {
    /// The upstream's command could not be started.
    #[error("could not start the upstream MCP server `{command}`: {source}")]
    Spawn {
        /// The command, escaped.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// The bearer token for an HTTP upstream could not be read.
    #[error("could not read the bearer token for upstream `{upstream}` from {from}: {reason}")]
    Token {
        /// The upstream's URL.
        upstream: String,
        /// `the file <path>` or `the environment variable <name>`.
        from: String,
        /// Why.
        reason: String,
    },
    /// The OAuth client secret for an HTTP upstream could not be read.
    #[error(
        "could not read the OAuth client secret for upstream `{upstream}` from {from}: {reason}"
    )]
    ClientSecret {
        /// The upstream's URL.
        upstream: String,
        /// `the file <path>` or `the environment variable <name>`.
        from: String,
        /// Why.
        reason: String,
    },
    /// No OAuth token for an HTTP upstream: its authorization server could not be found,
    /// does not take client credentials, or refused them. The secret is never part of it.
    #[error("OAuth client credentials for upstream `{upstream}`: {reason}")]
    OAuth {
        /// The upstream's URL.
        upstream: String,
        /// Why, escaped.
        reason: String,
    },
    /// The credentials each caller reaches the upstream with (a token exchange, a file of
    /// tokens by principal, an identity header) are misconfigured.
    #[error("the callers' credentials for upstream `{upstream}`: {reason}")]
    CallerCredentials {
        /// The upstream, escaped.
        upstream: String,
        /// What is wrong, and what to fix.
        reason: String,
    },
    /// The MCP handshake (`initialize`) failed.
    #[error("the MCP handshake with upstream `{upstream}` failed: {reason}")]
    Handshake {
        /// The upstream.
        upstream: String,
        /// Why.
        reason: String,
    },
    /// A request to the upstream failed (the transport closed, an error reply, a timeout).
    #[error("upstream `{upstream}`: `{method}` failed: {reason}")]
    Request {
        /// The upstream.
        upstream: String,
        /// The MCP method.
        method: &'static str,
        /// Why, escaped.
        reason: String,
    },
    /// The upstream answered a request with a result of another kind.
    #[error("upstream `{upstream}` answered `{method}` with an unexpected kind of result")]
    UnexpectedResult {
        /// The upstream.
        upstream: String,
        /// The MCP method.
        method: &'static str,
    },
    /// The namespace of a mount is not one.
    #[error("mount namespace `{namespace}` is invalid: {reason}")]
    Namespace {
        /// The namespace given, escaped.
        namespace: String,
        /// What is wrong.
        reason: String,
    },
    /// The limits of a mount (`MountOptions::max_concurrent`, `rate` and their per-caller
    /// shares) cannot hold together.
    #[error("the limits of the mount `{namespace}` are invalid: {reason}")]
    Limits {
        /// The namespace, escaped.
        namespace: String,
        /// What is wrong.
        reason: String,
    },
    /// A URI that is not one of the mount's resources (not in its namespace): it is never
    /// sent upstream.
    #[error(
        "`{uri}` is not a resource of the upstream mounted as `{namespace}` (its URIs are \
         `{namespace}+scheme:...` with `-` for `_`, or `skill://{namespace}/...`)"
    )]
    NotMounted {
        /// The URI given, escaped.
        uri: String,
        /// The mount's namespace.
        namespace: String,
    },
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for UpstreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
