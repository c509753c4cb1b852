use toolwright::prompt;

fn languages(prefix: &str) -> Vec<String> {
    vec![prefix.to_owned()]
}

/// Review code.
#[prompt(complete(language = languages))]
fn review(language: String) -> String {
    format!("Review this {language}.")
}

fn main() {}
