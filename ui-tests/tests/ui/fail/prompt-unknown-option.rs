use toolwright::prompt;

/// Review code.
#[prompt(titel = "Review")]
fn review() -> String {
    "Review this.".into()
}

fn main() {}
