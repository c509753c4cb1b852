use toolwright::tool;

/// Delete a file.
#[tool(safety = "risky")]
fn delete_file(path: String) -> String {
    path
}

/// Delete a directory.
#[tool(safety = "dangerus")]
fn delete_dir(path: String) -> String {
    path
}

fn main() {}
