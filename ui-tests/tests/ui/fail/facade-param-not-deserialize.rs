// What an application on the facade reads when a parameter's type derives nothing.
use toolwright::tool;

struct Filter {
    word: String,
}

/// Search with a filter.
#[tool]
fn search(filter: Filter) -> String {
    filter.word
}

fn main() {}
