use toolwright::tool;

struct Pool;

/// By value.
#[tool]
fn by_value(#[state] pool: Pool) -> String {
    let _ = pool;
    String::new()
}

/// By mutable reference.
#[tool]
fn by_mut(#[state] pool: &mut Pool) -> String {
    let _ = pool;
    String::new()
}

fn main() {}
