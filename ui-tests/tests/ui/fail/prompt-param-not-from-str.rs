use toolwright::prompt;

/// Review code.
#[prompt]
fn review(languages: Vec<String>) -> String {
    format!("Review this {}.", languages.join(", "))
}

fn main() {}
