use toolwright::model::{CompletionRequest, Completions};
use toolwright::prompt;

fn languages(request: &CompletionRequest) -> Completions {
    Completions::matching(["rust"], &request.value)
}

/// Review code.
#[prompt(complete(langauge = languages))]
fn review(language: String) -> String {
    format!("Review this {language}.")
}

fn main() {}
