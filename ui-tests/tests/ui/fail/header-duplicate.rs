use toolwright::tool;

/// Deploy to a region.
#[tool]
fn deploy(
    /// Where.
    #[arg(header = "Region")]
    region: String,
    /// Where else.
    #[arg(header = "region")]
    fallback: String,
) -> String {
    region + &fallback
}

fn main() {}
