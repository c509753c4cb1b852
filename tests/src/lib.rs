//! Cross-crate integration tests live in `tests/`.

// The operator's guide's Rust blocks, compiled as the application they show: on the facade.
#[cfg(doctest)]
#[doc = include_str!("../../book/src/serving.md")]
#[doc = include_str!("../../book/src/tasks.md")]
#[doc = include_str!("../../book/src/replicas.md")]
#[doc = include_str!("../../book/src/deferred-tools.md")]
struct BookDoctests;
