use toolwright::tool;

/// Repeat a word.
#[tool(required("word", "times"))]
fn repeat(
    word: String,
    #[arg(default = 2)]
    times: u32,
) -> String {
    word.repeat(times as usize)
}

fn main() {}
