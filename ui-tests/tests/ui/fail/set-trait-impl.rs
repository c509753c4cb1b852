use toolwright::{tool, tool_set};

struct Service;

trait Greeter {
    fn greet(&self) -> String;
}

#[tool_set]
impl Greeter for Service {
    /// Greet.
    #[tool]
    fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}
