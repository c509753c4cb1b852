use toolwright::{tool, tool_set};

struct Service;

#[tool_set(crat = toolwright, safety = "safe")]
impl Service {
    /// Say hi.
    #[tool(crate = toolwright)]
    fn hi(&self) -> String {
        String::new()
    }
}

fn main() {}
