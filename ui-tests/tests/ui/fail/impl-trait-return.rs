use toolwright::tool;

/// Greet someone.
#[tool]
fn greet(name: String) -> impl std::fmt::Display {
    name
}

fn main() {}
