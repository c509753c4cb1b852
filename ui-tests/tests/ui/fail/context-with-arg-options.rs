use toolwright::{tool, ToolContext};

/// Who is calling.
#[tool]
fn caller(#[arg(rename = "context")] ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
