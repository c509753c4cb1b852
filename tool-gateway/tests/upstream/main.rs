//! Mounting an upstream MCP server's tools (feature `upstream`): the upstream is a small
//! rmcp `ServerHandler` written here (it lists raw tools our registry could not hold:
//! `get-weather`, `searchRepositories`, a 500-character name, controls, a non-object
//! schema) or our own `McpServer`, in process over `tokio::io::duplex`. No sleeps: every
//! wait has a generous deadline that fails the test.

// The layers, lowest first: support; then calls, hostile_lists, list_changes,
// mount_errors, names_and_safety (each uses only support).
mod calls;
mod hostile_lists;
mod list_changes;
mod mount_errors;
mod names_and_safety;
mod support;
