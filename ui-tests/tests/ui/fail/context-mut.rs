use toolwright::{tool, ToolContext};

/// Who is calling.
#[tool]
fn caller(ctx: &mut ToolContext) -> String {
    ctx.call_id().to_owned()
}

fn main() {}
