use toolwright::tool;

/// Greet someone.
#[tool]
fn greet(name: impl Into<String>) -> String {
    name.into()
}

fn main() {}
