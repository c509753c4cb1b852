use toolwright::{tool, tool_set};

struct Service;

#[tool_set]
impl Service {
    /// Consume the service.
    #[tool]
    fn consume(self) -> String {
        String::new()
    }

    /// Consume it mutably.
    #[tool]
    fn consume_mut(mut self) -> String {
        let _ = &mut self;
        String::new()
    }

    /// Box it.
    #[tool]
    fn boxed(self: Box<Self>) -> String {
        String::new()
    }
}

fn main() {}
