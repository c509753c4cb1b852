use toolwright::tool;

/// A tool that is a struct.
#[tool]
struct ReadFile {
    path: String,
}

fn main() {}
