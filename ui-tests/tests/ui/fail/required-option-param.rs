use toolwright::tool;

/// Read a file.
#[tool(required("path", "max_bytes"))]
fn read_file(path: String, max_bytes: Option<u64>) -> String {
    let _ = max_bytes;
    path
}

fn main() {}
