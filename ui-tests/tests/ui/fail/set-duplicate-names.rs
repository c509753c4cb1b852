use toolwright::{tool, tool_set};

struct Service;

#[tool_set]
impl Service {
    /// Say hi.
    #[tool]
    fn hi(&self) -> String {
        String::new()
    }

    /// Say hi again.
    #[tool(name = "hi")]
    fn hi_again(&self) -> String {
        String::new()
    }
}

fn main() {}
