use tool_runtime::tool;

/// Read a file.
#[tool(crate = "tool_runtime")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
