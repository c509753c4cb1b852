use toolwright::tool;

/// Log in.
#[tool]
fn login(
    user: String,
    #[arg(secret = true)]
    password: String,
) -> String {
    user + &password
}

fn main() {}
