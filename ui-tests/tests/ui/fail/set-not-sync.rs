// A set's instance is shared by concurrent calls: it must be `Send + Sync`.
use std::cell::Cell;

use toolwright::{tool, tool_set};

struct Service {
    count: Cell<u32>,
}

#[tool_set]
impl Service {
    /// Count.
    #[tool]
    fn count(&self) -> u32 {
        self.count.get()
    }
}

fn main() {}
