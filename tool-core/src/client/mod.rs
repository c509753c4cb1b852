//! What the client that made a call offers a running tool: logging to it, asking its user
//! (elicitation), asking its model (sampling). An MCP server implements [`ClientPowers`]
//! for its sessions; a tool reaches it through [`ToolContext::log`](crate::ToolContext::log),
//! [`ToolContext::elicit`](crate::ToolContext::elicit) and
//! [`ToolContext::sample`](crate::ToolContext::sample). Elsewhere (a plain executor, a
//! direct `Tool::call`) those say [`ClientError::NotAvailable`].
//!
//! `toolwright_core::client` (this module, re-exported) adds a whole example, run
//! through the executor.

// The layers, lowest first (no module imports one listed after it): log, error, elicitation,
// sampling, schema, question, powers.
mod elicitation;
mod error;
mod log;
mod powers;
mod question;
mod sampling;
mod schema;

pub use elicitation::{Elicitation, ElicitationRequest};
pub use error::ClientError;
pub(crate) use log::log_to_tracing;
pub use log::{LogLevel, ParseLogLevelError};
pub use powers::{ClientFuture, ClientPowers, DEFAULT_MAX_CLIENT_REQUESTS, ask_one};
pub use question::{Answer, Ask, MAX_QUESTION_KEY_LEN, Question, Root, RootsRequest};
pub use sampling::{Role, SampledMessage, SamplingMessage, SamplingOptions, SamplingRequest};
pub use schema::elicitation_schema;
