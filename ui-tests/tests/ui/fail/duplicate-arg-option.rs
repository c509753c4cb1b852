use toolwright::tool;

/// Repeat a word.
#[tool]
fn repeat(
    word: String,
    #[arg(default = 1)]
    #[arg(rename = "count", default = 2)]
    times: u32,
) -> String {
    word.repeat(times as usize)
}

fn main() {}
