use toolwright::tool;

/// Read a file.
#[tool]
fn read_file(
    path: String,
    #[arg(default = Some(1024))]
    max_bytes: Option<u64>,
) -> String {
    let _ = max_bytes;
    path
}

fn main() {}
