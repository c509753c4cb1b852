use toolwright::{ToolContext, tool};

struct Pool;
trait Store {}

/// Problems with state parameters.
#[tool]
fn state_problems(
    #[state] ctx: &ToolContext,
    #[state]
    #[arg(rename = "p")]
    pool: &Pool,
    #[state] store: &dyn Store,
    #[state(shared)] other: &Pool,
) -> String {
    let _ = (ctx, pool, store, other);
    String::new()
}

fn main() {}
