use toolwright::tool;

/// Read a file.
#[tool(name = "ReadFile")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
