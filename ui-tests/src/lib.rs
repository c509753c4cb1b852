//! Compile-time checks of `#[tool]`, tested with trybuild: `tests/ui/fail/*.rs` must fail
//! to compile with the error in the matching `.stderr`; `tests/ui/pass/*.rs` must compile.
