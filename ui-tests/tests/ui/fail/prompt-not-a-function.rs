use toolwright::prompt;

/// Review code.
#[prompt]
struct Review;

fn main() {}
