use std::rc::Rc;

use toolwright::tool;

/// Count to a number slowly.
#[tool]
async fn count(to: u32) -> u32 {
    let counter = Rc::new(to);
    tokio::task::yield_now().await;
    *counter
}

fn main() {}
