use toolwright::tool;

/// Read a file.
#[tool(required("path", "path"))]
fn read_file(path: String) -> String {
    path
}

fn main() {}
