use tool_runtime::tool;

#[tool(descripton = "Read a file.")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
