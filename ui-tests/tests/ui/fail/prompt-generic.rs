use toolwright::prompt;

/// Review code.
#[prompt]
fn review<T: std::str::FromStr>(language: String) -> String {
    format!("Review this {language}.")
}

fn main() {}
