#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// `providers` and `schema` stand on toolwright-core alone; neither uses the other.
// `discovery` (deferred tool lists, search) uses both.
// The layers, lowest first (no module imports one listed after it): providers, schema,
// discovery.
pub mod discovery;
pub mod providers;
pub mod schema;
