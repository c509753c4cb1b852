//! Tool search: BM25 over what a tool says about itself, for registries too large to show a
//! model whole.

// The layers, lowest first (no module imports one listed after it): text, index.
mod index;
mod text;

pub(crate) use index::SearchIndex;
