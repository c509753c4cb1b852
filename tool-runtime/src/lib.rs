#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The tool model is toolwright-core, the formats toolwright-formats: this crate re-exports
// neither (applications reach all three through the `toolwright` facade).

// The layers, lowest first (no module imports one listed after it): search, registry,
// executor.
pub mod executor;
pub mod registry;
mod search;

pub use executor::{
    ApprovalDecision, ApprovalHandler, ApprovalRequest, CallOptions, Discovery, Executor,
    ExecutorBuilder,
};
pub use registry::{
    NameClash, RegisterOptions, Registration, RegistryError, RegistrySnapshot, ToolFilter,
    ToolRegistry, register_all_tools,
};
