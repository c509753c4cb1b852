use toolwright_runtime::tool;

/// Greet someone.
#[tool]
fn greet(name: String) -> impl std::fmt::Display {
    name
}

fn main() {}
