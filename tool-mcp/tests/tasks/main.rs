//! Tasks (the MCP tasks extension, SEP-2663) over streamable HTTP, with rmcp's client: a
//! call of a task tool answers with a task that the client polls to its end, cancels,
//! answers; tasks belong to their caller, expire, and are shared by servers that share a
//! store (a memory store in one process; Redis with the `redis` feature).
//!
//! No test waits for a time: each waits for an event (a tool that signals, a task status
//! that `tasks/get` shows) under a generous deadline that fails it.

// The layers, lowest first: redis_server, support; then approvals, capabilities,
// lifecycle, redis_store, sharing (each uses only those two).
mod approvals;
mod capabilities;
mod lifecycle;
#[cfg(feature = "redis")]
mod redis_store;
mod sharing;
mod support;

#[cfg(feature = "redis")]
#[path = "../common/redis.rs"]
mod redis_server;
