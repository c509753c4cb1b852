use toolwright::tool;

/// Read a file.
#[tool(version = "1.0 beta")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
