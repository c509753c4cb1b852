#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Both modules stand on toolwright-core alone; neither uses the other.
// The layers, lowest first (no module imports one listed after it): providers, schema.
pub mod providers;
pub mod schema;
