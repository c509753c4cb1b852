use toolwright::tool;

/// Read a file.
#[tool(safety, categories = "filesystem")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
