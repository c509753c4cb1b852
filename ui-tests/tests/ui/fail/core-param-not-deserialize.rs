// What a crate of tools on the core alone reads when a parameter's type derives nothing.
use toolwright_core::tool;

struct Filter {
    word: String,
}

/// Search with a filter.
#[tool]
fn search(filter: Filter) -> String {
    filter.word
}

fn main() {}
