use toolwright::tool;

/// Repeat a word.
#[tool]
fn repeat(
    word: String,
    #[arg(defualt = 1)]
    times: u32,
) -> String {
    word.repeat(times as usize)
}

fn main() {}
