#![doc = include_str!("../../docs/registry.md")]

// The layers, lowest first (no module imports one listed after it): kind, error,
// registration, filter, events, storage, primitives, listing, lifecycle, snapshot, search,
// discovery, catalog, linked.
//
// The leaves `error`, `registration` and `filter` are plain types; `events` the change events,
// which carry registrations and are matched against filters; `storage` the map behind
// `ToolRegistry` (register, look up, remove, and the event each sends); then the files that
// add methods to `ToolRegistry` over `storage` and import none of one another: `listing`,
// `primitives` (prompts, resources, skills), `lifecycle` (enable, disable, priorities),
// `snapshot`, `search`, `discovery` (deferred tool lists and the answer to a model's
// search), `catalog` and `linked` (every `#[tool]`, `#[prompt]` and
// `#[resource]` of the binary). `kind` is the leaf naming which primitive.
mod catalog;
mod discovery;
mod error;
mod events;
mod filter;
mod kind;
mod lifecycle;
mod linked;
mod listing;
mod primitives;
mod registration;
mod search;
mod snapshot;
mod storage;

pub use jiff::Timestamp;

pub use error::{NameClash, RegistryError};
pub use events::{CHANGE_CAPACITY, ChangeKind, PrimitiveState, RegistryChange};
pub use filter::ToolFilter;
pub use kind::Primitive;
pub use linked::register_all_tools;
pub use listing::ToolInfo;
pub use registration::{RegisterOptions, Registration};
pub use search::SearchHit;
pub use snapshot::{ApplyReport, PrimitiveSnapshot, RegistrationSnapshot, RegistrySnapshot};
pub(crate) use storage::Lookup;
pub use storage::{Clock, ToolRegistry};
