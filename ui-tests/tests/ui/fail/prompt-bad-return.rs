use toolwright::prompt;

/// Count.
#[prompt]
fn count() -> i32 {
    3
}

fn main() {}
