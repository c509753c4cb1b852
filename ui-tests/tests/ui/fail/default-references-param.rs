use toolwright::tool;

/// Take a slice of a text.
#[tool]
fn slice(
    text: String,
    #[arg(default = text.len())]
    end: usize,
) -> String {
    text[..end].to_owned()
}

fn main() {}
