use toolwright_runtime::tool;

/// Read a file.
#[tool(crate = "toolwright_runtime")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
