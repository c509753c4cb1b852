use toolwright::{prompt, tool_set};

struct Team;

#[tool_set]
impl Team {
    /// Review code.
    #[prompt(safety = "dangerus")]
    fn review(&mut self) -> String {
        "Review this.".into()
    }
}

fn main() {}
