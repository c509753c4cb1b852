use toolwright::prompt;

struct Team;

/// Review code.
#[prompt]
fn review(
    #[state] team: &Team,
    #[arg(default = "rust".to_owned())] language: String,
) -> String {
    let _ = team;
    format!("Review this {language}.")
}

fn main() {}
