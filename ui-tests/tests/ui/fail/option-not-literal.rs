use toolwright::tool;

const NAME: &str = "read_file";

/// Read a file.
#[tool(name = NAME, tags = "files")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
