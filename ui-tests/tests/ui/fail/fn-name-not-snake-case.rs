use toolwright::tool;

/// Read a file.
#[allow(non_snake_case)]
#[tool]
fn readFile(path: String) -> String {
    path
}

fn main() {}
