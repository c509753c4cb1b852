use tool_runtime::{tool, tool_set};

struct Service;

#[tool_set(crat = tool_runtime, safety = "safe")]
impl Service {
    /// Say hi.
    #[tool(crate = tool_runtime)]
    fn hi(&self) -> String {
        String::new()
    }
}

fn main() {}
