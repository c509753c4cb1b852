//! The streamable HTTP server (feature `http`): its connections and their shares, the
//! checks before rmcp reads a request, the ops endpoints, the options, and the server.

// The layers, lowest first (no module imports one listed after it): body, pool, conn,
// listen, guard, sessions, metrics, ops, options, server, serve.
pub(crate) mod body;
pub(crate) mod conn;
pub(crate) mod guard;
pub(crate) mod listen;
#[cfg(feature = "metrics")]
pub(crate) mod metrics;
pub(crate) mod ops;
pub(crate) mod options;
pub(crate) mod pool;
pub(crate) mod serve;
pub(crate) mod server;
pub(crate) mod sessions;
