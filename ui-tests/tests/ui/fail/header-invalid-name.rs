use toolwright::tool;

/// Deploy to a region.
#[tool]
fn deploy(
    /// Where.
    #[arg(header = "Region Name")]
    region: String,
) -> String {
    region
}

fn main() {}
