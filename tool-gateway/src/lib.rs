#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// The layers, lowest first (no module imports one listed after it): upstream, config,
// supervise.
pub mod config;
pub mod supervise;
pub mod upstream;

pub use config::{Checks, ConfigError, GatewayConfig, StartError, UpstreamConfig};
pub use supervise::{Gateway, ReloadReport, UpstreamState, UpstreamStatus};
pub use upstream::{Mount, MountOptions, MountReport, MountUpstream, Upstream, UpstreamError};
