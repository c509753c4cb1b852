use toolwright::tool;

/// Deploy to regions.
#[tool]
fn deploy(
    /// Where.
    #[arg(header = "Regions")]
    regions: Vec<String>,
    /// The token.
    #[arg(secret, header = "Token")]
    token: String,
) -> String {
    regions.join(",") + &token
}

fn main() {}
