use toolwright::tool;

/// Write a file.
#[tool(required("path"))]
fn write_file(path: String, contents: String) -> String {
    path + &contents
}

fn main() {}
