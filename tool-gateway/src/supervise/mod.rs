//! Supervision and reload of a configuration's upstreams: [`Gateway`].
//!
//! - **Each on its own.** Every upstream has a task that starts it (within
//!   `supervise.handshake_timeout`, default 60 s), mounts it, waits for its connection to
//!   end (an event: the child exited, the transport closed), withdraws its tools, prompts
//!   and resources (clients hear `list_changed`), and starts it again after a backoff
//!   (`backoff_initial` 1 s doubling to `backoff_max` 60 s, back to the start after
//!   `healthy_after` 60 s up). Pins and fingerprints are checked at every start, as at the
//!   first: a tool that changed between starts is mounted disabled.
//! - **Withdrawn, not refused.** While an upstream is down its tools are not listed (a
//!   client that calls one gets the unknown-tool error), rather than listed and failing:
//!   a model then does not pick tools that cannot answer, and `list_changed` tells it
//!   when they are back.
//! - **Reload.** [`Gateway::reload`] compares each `[[upstream]]` table (and its
//!   supervision) with the running one: new ones start, removed ones drain and stop,
//!   changed ones are stopped and started again, the others are left alone.

// The layers, lowest first (no module imports one listed after it): status, runner, gateway.
mod gateway;
mod runner;
mod status;

pub use gateway::Gateway;
pub use status::{ReloadReport, UpstreamState, UpstreamStatus};
