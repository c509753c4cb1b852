//! `McpServer`, rmcp's `ServerHandler` over an `Executor`: its one home, its impl split by
//! concern.

// The layers, lowest first (no module imports one listed after it): views, watch,
// subscriptions, setup, session, listen, task_run, tasks, calls, primitives, handler, stdio.
pub(crate) mod calls;
pub(crate) mod handler;
pub(crate) mod listen;
pub(crate) mod primitives;
pub(crate) mod session;
pub(crate) mod setup;
pub(crate) mod stdio;
pub(crate) mod subscriptions;
pub(crate) mod task_run;
pub(crate) mod tasks;
pub(crate) mod views;
pub(crate) mod watch;
