use toolwright::tool;

/// Read a file.
#[tool(safety = "safe", safety = "cautious")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
