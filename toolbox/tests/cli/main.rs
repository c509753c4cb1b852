//! The `toolwright` command line, run as a user runs it.

// The layers, lowest first: support; then commands, completions_and_man, output, policy,
// serve_secrets (each uses only support).
mod commands;
mod completions_and_man;
mod output;
mod policy;
mod serve_secrets;
mod support;
