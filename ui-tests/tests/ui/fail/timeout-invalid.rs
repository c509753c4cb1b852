use toolwright::tool;

/// No unit.
#[tool(timeout = "30")]
fn no_unit() {}

/// Zero.
#[tool(timeout = "0s")]
fn zero() {}

/// A space and a word for the unit.
#[tool(timeout = "30 sec")]
fn spelled_out() {}

/// Negative.
#[tool(timeout = "-1s")]
fn negative() {}

/// Too long to hold.
#[tool(timeout = "99999999999999999999h")]
fn overflow() {}

/// Fits in the number but not in milliseconds.
#[tool(timeout = "18446744073709551615h")]
fn overflow_in_ms() {}

/// Not a string.
#[tool(timeout = 30)]
fn not_a_string() {}

/// A fraction.
#[tool(timeout = "1.5s")]
fn fraction() {}

fn main() {}
