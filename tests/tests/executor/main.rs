//! The executor, in a test binary of its own so its tools do not mix with the collection
//! tests' tools.

mod call_policy;
mod catalog;
mod contract;
mod hooks_and_metrics;
mod policy;
mod previews;
mod properties;
mod running;
mod tools;
