use toolwright::{tool, tool_set};

struct Service {
    count: u32,
}

#[tool_set]
impl Service {
    /// Count one more.
    #[tool]
    fn bump(&mut self) -> u32 {
        self.count += 1;
        self.count
    }
}

fn main() {}
