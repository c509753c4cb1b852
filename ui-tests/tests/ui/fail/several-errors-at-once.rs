use toolwright::tool;

/// Read a file.
#[tool(name = "ReadFile", safety = "risky", descripton = "Read a file.")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
