use toolwright::tool;

/// Read a file.
#[tool(name = "")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
