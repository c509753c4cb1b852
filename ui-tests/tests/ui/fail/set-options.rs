use toolwright_runtime::{tool, tool_set};

struct Service;

#[tool_set(crat = toolwright_runtime, safety = "safe")]
impl Service {
    /// Say hi.
    #[tool(crate = toolwright_runtime)]
    fn hi(&self) -> String {
        String::new()
    }
}

fn main() {}
