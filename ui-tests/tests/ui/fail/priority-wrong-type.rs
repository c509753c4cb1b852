use toolwright::tool;

/// Read a file.
#[tool(priority = "high")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
