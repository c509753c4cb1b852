//! Tools that return content blocks (images, audio, resources): through `Tool::call`, the
//! executor (with its output limit and output schema check), the execution contract's JSON,
//! and every provider format. A binary of its own, so its tools do not change the other
//! binaries' tool lists and exports.

mod executor;
mod providers;
mod tools;
