use toolwright::prompt;

/// Review code.
#[prompt]
fn review(language: &str) -> String {
    format!("Review this {language}.")
}

fn main() {}
