use toolwright::tool;

/// Read a file.
#[tool(required("pth"))]
fn read_file(path: String) -> String {
    path
}

fn main() {}
