//! Why a server could not start, or stopped with an error.

#[cfg(feature = "auth")]
use crate::auth::error::AuthError;

/// Why a server could not start or stopped with an error.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A socket or stream failed.
    #[error("MCP server I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The client and server could not agree (initialization failed, transport closed).
    #[error("MCP protocol error: {0}")]
    Protocol(String),
    /// The tool registry could not be built.
    #[error(transparent)]
    Registry(#[from] toolwright_runtime::RegistryError),
    /// The server's options cannot be used as given (the message says what to change).
    #[error("cannot serve MCP: {0}")]
    Config(String),
    /// An authentication setting could not be used.
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    #[error(transparent)]
    Auth(#[from] AuthError),
}

/// `Debug` shows the message, as `Display` does: what `fn main() -> Result<(), E>` and
/// `anyhow` print is then the explanation, not the variant's fields.
impl std::fmt::Debug for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
