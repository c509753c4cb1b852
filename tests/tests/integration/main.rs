//! Cross-crate integration tests, one binary with a module per topic.
//!
//! Tools come from three places: this test crate, `weather-tools` (whose functions the tests
//! call), and `admin-tools` (whose functions nothing calls: it is linked only because it is
//! named below), plus `renamed-core-tools` (`#[tool(crate = ...)]`).

// The smallest wiring that links a crate nothing else names, so its tools are collected.
use admin_tools as _;

mod adapter;
mod collection;
mod local_tools;
mod output;
mod providers;
mod registry;
mod runtime_tools;
mod schema;
mod schema_export;
mod search;
mod search_quality;
mod snapshot;
