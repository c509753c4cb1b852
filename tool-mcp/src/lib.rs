#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it): status, secret, principal,
// jsonrpc, content, in_flight, refused, owners, caller, auth, error, ask, client,
// session_store, tasks, server, http.
mod ask;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub mod auth;
mod caller;
mod client;
mod content;
mod error;
#[cfg(feature = "http")]
mod http;
mod in_flight;
mod jsonrpc;
#[cfg(feature = "http")]
mod owners;
mod principal;
mod refused;
pub mod secret;
mod server;
#[cfg(feature = "redis")]
mod session_store;
pub mod status;
pub mod tasks;

// The README (the crate's front page) links `Executor`.
#[cfg(doc)]
use toolwright_runtime::Executor;

pub use ask::rounds::{
    DEFAULT_MAX_CLAIMS_PER_OWNER, DEFAULT_MAX_MEMORY_CLAIMS, MemoryClaims, StateClaims,
};
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use auth::{AuthConfig, AuthError, JwtConfig, TokenRejected};
pub use error::ServeError;
#[cfg(feature = "metrics")]
#[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
pub use http::metrics::PrometheusMetrics;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::options::HttpOptions;
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::serve::{serve_http, serve_http_with};
#[cfg(feature = "http")]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub use http::server::{DrainReport, HttpServer, nodelay_listener};
pub use principal::Principal;
pub use server::setup::McpServer;
pub use server::stdio::serve_stdio;
pub use server::subscriptions::{
    DEFAULT_MAX_SUBSCRIPTIONS_PER_PRINCIPAL, DEFAULT_MAX_SUBSCRIPTIONS_PER_SESSION,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use session_store::{
    DEFAULT_KEY_PREFIX, DEFAULT_STATE_KEY_PREFIX, DEFAULT_TTL, RedisSessionStore, RedisStoreError,
    redis_url_has_password,
};
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub use tasks::RedisTaskStore;
pub use tasks::{MemoryTaskStore, TaskStore};
// The gateway (toolwright-gateway) turns what an upstream server logs into ours with the
// same mapping as a client's level; not part of the API.
#[doc(hidden)]
pub use client::from_rmcp as log_level_from_rmcp;
