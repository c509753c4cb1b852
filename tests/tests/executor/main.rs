//! The executor, in a test binary of its own so its tools do not mix with the collection
//! tests' tools.

mod call_limits;
mod catalog;
mod contract;
mod declared_rules;
mod deferred_approvals;
mod guardrails;
mod hooks_and_metrics;
mod offered_set;
mod policy;
mod previews;
mod properties;
mod running;
mod tools;
