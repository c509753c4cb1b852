#![deny(warnings, clippy::all)]
// `#[state]` parameters on free functions, sync and async, in any position, beside the
// context; they are not in the schema.
use toolwright::{ToolContext, register_all_tools, tool};

struct Pool(String);
struct Prefix(&'static str);

/// Describe the pool.
#[tool]
fn describe_pool(#[state] pool: &Pool, verbose: bool, #[state] prefix: &Prefix) -> String {
    if verbose { format!("{}{}", prefix.0, pool.0) } else { pool.0.clone() }
}

/// Describe the pool later.
#[tool]
async fn describe_pool_later(ctx: &ToolContext, #[state] pool: &toolwright::model::Json<Pool>) -> String {
    let _ = ctx;
    pool.0.0.clone()
}

fn main() {
    let registry = register_all_tools().unwrap();
    let tool = registry.get("describe_pool").unwrap();
    assert_eq!(tool.required(), ["verbose"]);
    assert_eq!(tool.required_state().len(), 2);
    assert_eq!(registry.get("describe_pool_later").unwrap().required_state().len(), 1);
}
