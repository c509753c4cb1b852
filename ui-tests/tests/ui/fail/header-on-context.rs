use toolwright::{ToolContext, tool};

/// Deploy.
#[tool]
fn deploy(#[arg(header = "Ctx")] ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
