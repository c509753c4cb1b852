// A crate of tools on the core alone: the generated code names `::toolwright_core`.
use toolwright_core::{tool, tool_type};

/// A query.
#[tool_type]
struct Query {
    /// Words to look for
    words: Vec<String>,
}

/// Count the words of a query.
#[tool]
fn count_words(query: Query) -> usize {
    query.words.len()
}

fn main() {
    let tool = toolwright_core::linked_tools()
        .find(|t| t.name() == "count_words")
        .unwrap();
    assert!(tool.input_schema().to_string().contains("Words to look for"));
}
