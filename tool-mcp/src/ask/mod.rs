//! How the server asks a client's user: approvals through elicitation (one form for both
//! eras), the answers read back whichever way they came, and the multi round-trip requests
//! of MCP 2026-07-28 (request-state rounds).

// The layers, lowest first (no module imports one listed after it): answers, approval,
// binding, rounds.
pub(crate) mod answers;
pub(crate) mod approval;
pub(crate) mod binding;
pub(crate) mod rounds;
