//! Cross-crate integration tests live in `tests/`.

// The Rust examples of the operator's guide (book/src), compiled as doctests here, where
// every crate they use is a dependency (toolwright-mcp's HTTP server with authentication and
// metrics among them).
#[cfg(doctest)]
#[doc = include_str!("../../book/src/serving.md")]
#[doc = include_str!("../../book/src/tasks.md")]
#[doc = include_str!("../../book/src/replicas.md")]
struct BookDoctests;
