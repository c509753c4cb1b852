use toolwright::prompt;

struct Team;

impl Team {
    /// Review code.
    #[prompt]
    fn review(&self) -> String {
        "Review this.".into()
    }
}

fn main() {}
