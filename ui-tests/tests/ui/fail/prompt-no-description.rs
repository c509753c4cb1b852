use toolwright::prompt;

#[prompt]
fn review() -> String {
    "Review this.".into()
}

fn main() {}
