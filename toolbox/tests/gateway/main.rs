//! `--config`: another MCP server's tools (here: a second `toolwright serve`, over stdio)
//! mounted beside the standard tools, listed, called and served under our policy.

// The layers, lowest first: support; then configuration, confinement, mounted,
// out_of_reach (each uses only support).
mod configuration;
mod confinement;
mod mounted;
mod out_of_reach;
mod support;
