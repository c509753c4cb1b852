use toolwright::tool;

/// Export every record.
#[tool(task = "always")]
fn export_all() -> String {
    String::new()
}

/// Rebuild the index.
#[tool(task = "requierd")]
fn rebuild_index() -> String {
    String::new()
}

/// Compact the database.
#[tool(task = true)]
fn compact() -> String {
    String::new()
}

fn main() {}
