//! Long-running calls as tasks: the MCP tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663, with protocol revision 2026-07-28).
//!
//! A client that declares the extension in its request's capabilities may get, instead of
//! a `CallToolResult`, a `CreateTaskResult` (`resultType: "task"`): a task id it polls with
//! `tasks/get` until the task is `completed` (the result inlined), `failed` (a JSON-RPC
//! error) or `cancelled`; it answers the task's questions (`inputRequests`, status
//! `input_required`) with `tasks/update`, and asks to stop it with `tasks/cancel`.
//!
//! The server makes a task of a call when the client declared the extension and either:
//!
//! - the tool says so: `#[tool(task = "optional" | "required")]`
//!   ([`TaskSupport`]); a `required` tool called by a client
//!   that did not declare the extension is refused (`-32021`, naming the extension), an
//!   `optional` one answers in the call as any tool;
//! - or the executor deferred the call's approval ([`ApprovalDecision::Defer`]) and the
//!   client may approve (it declared elicitation, and its token has `tools:approve`): the
//!   task waits (`input_required`) with the approval form in `inputRequests`, and the
//!   client's answer resumes the call ([`Executor::resume_with`]).
//!
//! A task's call runs through the executor like any call (policy, approvals, hooks,
//! metrics, limits). Its end is its result: a tool's error too is a `completed` task,
//! with an `isError` result; a task is `failed` only for an internal failure (the tool
//! crashed, [`CallReport::crashed`], or the task could not be kept or asked), with the
//! JSON-RPC error. A dangerous call is approved as for any call, except that a client
//! that can be asked is asked through the task (the call is deferred and resumed with the
//! answer). The tool's progress is the task's status message; its questions
//! ([`ToolContext::elicit`](toolwright_core::ToolContext::elicit)) go to `inputRequests`;
//! it cannot log to the client or sample its model (no open request carries them).
//!
//! Tasks live in a [`TaskStore`]: in memory by default ([`MemoryTaskStore`]); in Redis with
//! the `redis` feature (`RedisTaskStore`), shared by replicas, so any replica answers
//! `tasks/get`, `tasks/update` and `tasks/cancel` for a task another one runs. The replica
//! that took the call runs it: it sees answers and cancel requests written elsewhere when it
//! next reads the task (at once with the memory store, within the poll interval with
//! Redis, and at its next progress write in any case); a task whose replica stopped stays
//! as it was until it expires.
//!
//! A task belongs to the caller that created it ([`Principal::owner`]; every caller that
//! was not authenticated shares [`ANONYMOUS_OWNER`]): for anyone else its id is unknown.
//! Its id is 128 random bits. It is kept [`DEFAULT_TASK_TTL`] (one hour) from its creation
//! unless [`McpServer::task_ttl`] says otherwise: then it is gone, and a call still running
//! is cancelled. [`TaskLimits`] bound the tasks per caller and in all, and the size of a
//! kept result.
//!
//! [`ApprovalDecision::Defer`]: toolwright_runtime::ApprovalDecision::Defer
//! [`CallReport::crashed`]: toolwright_runtime::executor::CallReport::crashed
//! [`Executor::resume_with`]: toolwright_runtime::Executor::resume_with
//! [`Principal::owner`]: crate::Principal::owner
//! [`McpServer::task_ttl`]: crate::McpServer::task_ttl
//! [`TaskSupport`]: toolwright_core::TaskSupport

// The layers, lowest first (no module imports one listed after it): record, store, handle,
// redis.
pub(crate) mod handle;
pub(crate) mod record;
#[cfg(feature = "redis")]
pub(crate) mod redis;
pub(crate) mod store;

pub use handle::{DEFAULT_POLL_INTERVAL, DEFAULT_TASK_TTL};
pub use record::{ANONYMOUS_OWNER, TaskRecord};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_TASK_KEY_PREFIX, RedisTaskStore};
pub use store::{MemoryTaskStore, TaskLimits, TaskStore, TaskStoreError};
