use toolwright::tool;

/// Read a file.
#[tool]
fn read_file(#[arg] path: String) -> String {
    path
}

fn main() {}
