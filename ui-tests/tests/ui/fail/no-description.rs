use toolwright::tool;

#[tool]
fn read_file(path: String) -> String {
    path
}

fn main() {}
