#![doc = include_str!("../../docs/registry.md")]

// The layers, lowest first (no module imports one listed after it): error, registration,
// filter, events, storage, listing, lifecycle, snapshot, search, catalog, linked.
//
// The leaves `error`, `registration` and `filter` are plain types; `events` the change events,
// which carry registrations and are matched against filters; `storage` the map behind
// `ToolRegistry` (register, look up, remove, and the event each sends); then the files that
// add methods to `ToolRegistry` over `storage` and import none of one another: `listing`,
// `lifecycle` (enable, disable, priorities), `snapshot`, `search`, `catalog` and `linked`
// (every `#[tool]` of the binary).
mod catalog;
mod error;
mod events;
mod filter;
mod lifecycle;
mod linked;
mod listing;
mod registration;
mod search;
mod snapshot;
mod storage;

pub use jiff::Timestamp;

pub use error::{NameClash, RegistryError};
pub use events::{CHANGE_CAPACITY, ChangeKind, RegistryChange};
pub use filter::ToolFilter;
pub use linked::register_all_tools;
pub use listing::ToolInfo;
pub use registration::{RegisterOptions, Registration};
pub use search::SearchHit;
pub use snapshot::{ApplyReport, RegistrationSnapshot, RegistrySnapshot};
pub(crate) use storage::Lookup;
pub use storage::{Clock, ToolRegistry};
