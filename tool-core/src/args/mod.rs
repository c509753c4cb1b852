//! The model's JSON arguments turned into typed parameters, and the errors a model reads
//! when they do not fit.

// The layers, lowest first (no module imports one listed after it): violation, error,
// watch, nested, typed, subset, shape, schema_check.
mod error;
mod nested;
mod schema_check;
mod shape;
mod subset;
mod typed;
mod violation;
mod watch;

pub use error::{ArgumentError, InvalidArguments, summarize_value};
pub(crate) use schema_check::SchemaChecker;
pub use schema_check::ValueChecker;
pub(crate) use shape::check_shape;
pub use typed::{Arguments, Take, ToolParam};
pub(crate) use typed::{take_string, take_strings};
