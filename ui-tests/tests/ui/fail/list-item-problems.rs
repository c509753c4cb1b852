use toolwright::tool;

/// Read a file.
#[tool(categories(filesystem, filesystem), tags("", "files", 3))]
fn read_file(path: String) -> String {
    path
}

fn main() {}
