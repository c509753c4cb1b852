use toolwright::tool;

#[tool(description = "  ")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
