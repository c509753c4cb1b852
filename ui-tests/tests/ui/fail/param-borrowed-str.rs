use toolwright::tool;

/// Count the characters of a text.
#[tool]
fn count_chars(text: &str) -> usize {
    text.chars().count()
}

fn main() {}
