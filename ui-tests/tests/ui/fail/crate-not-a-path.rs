use toolwright::tool;

/// Read a file.
#[tool(crate = "toolwright")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
