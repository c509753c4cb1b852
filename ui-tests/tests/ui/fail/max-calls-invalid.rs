use toolwright::tool;

/// Zero.
#[tool(max_calls = 0)]
fn zero() {}

/// A string.
#[tool(max_calls = "10")]
fn string() {}

/// Negative.
#[tool(max_calls = -1)]
fn negative() {}

/// A float.
#[tool(max_calls = 2.5)]
fn float() {}

/// Too large for a u32.
#[tool(max_calls = 5000000000)]
fn too_large() {}

/// A suffix of another type.
#[tool(max_calls = 10u8)]
fn suffix() {}

/// Not a literal.
#[tool(max_calls = LIMIT)]
fn constant() {}

const LIMIT: u32 = 3;

fn main() {
    let _ = LIMIT;
}
