use toolwright::tool;

fn preview(path: &str) -> String {
    format!("delete {path}")
}

/// Delete a file.
#[tool(safety = "dangerous", preview = preview)]
fn delete_file(path: String) -> String {
    path
}

/// Delete a directory.
#[tool(safety = "dangerous", preview = "preview")]
fn delete_dir(path: String) -> String {
    path
}

fn main() {}
