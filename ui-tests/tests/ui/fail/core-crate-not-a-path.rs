// A crate of tools on the core alone reads the core's paths in the macro's messages.
use toolwright_core::{tool, tool_set};

/// Read a file.
#[tool(crate = "toolwright_core")]
fn read_file(path: String) -> String {
    path
}

struct Service;

#[tool_set(safety = "safe")]
impl Service {
    /// Say hi.
    #[tool(crate = toolwright_core)]
    fn hi(&self) -> String {
        String::new()
    }
}

fn main() {}
