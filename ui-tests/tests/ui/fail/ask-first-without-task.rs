use toolwright::{ToolContext, tool};

/// Greet someone.
#[tool(ask_first)]
async fn greet(ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

/// Greet someone else.
#[tool(task = "optional", ask_first = true)]
async fn greet_again(ctx: &ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
