use toolwright::prompt;

/// Review code.
#[prompt(name = "code review")]
fn review() -> String {
    "Review this.".into()
}

fn main() {}
