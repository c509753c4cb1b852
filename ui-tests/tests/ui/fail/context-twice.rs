use toolwright::{tool, ToolContext};

/// Who is calling.
#[tool]
fn caller(ctx: &ToolContext, again: &ToolContext) -> String {
    format!("{}{}", ctx.call_id(), again.call_id())
}

fn main() {}
