use toolwright::tool;

/// Read a file.
#[tool]
fn read_file(
    #[arg(rename = "file path")]
    path: String,
) -> String {
    path
}

fn main() {}
