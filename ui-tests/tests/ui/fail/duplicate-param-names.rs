use toolwright::tool;

/// Copy a file.
#[tool]
fn copy_file(
    #[arg(rename = "path")]
    from: String,
    path: String,
) -> String {
    from + &path
}

fn main() {}
