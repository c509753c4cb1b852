//! The usual priorities of tools in listings: higher comes first.
//!
//! ```
//! use toolwright_core::priority;
//! assert!(priority::BUILTIN > priority::OFFICIAL && priority::OFFICIAL > priority::COMMUNITY);
//! ```

/// Tools that ship with the application (100).
pub const BUILTIN: i32 = 100;
/// Official extension tools (50).
pub const OFFICIAL: i32 = 50;
/// Third-party and custom tools (10); the default.
pub const COMMUNITY: i32 = 10;
/// The priority a tool has when none is given: [`COMMUNITY`].
pub const DEFAULT: i32 = COMMUNITY;
