use toolwright::tool_type;

// The derives `#[tool_type]` adds, written again.
#[tool_type]
#[derive(Debug, serde::Serialize, Clone)]
struct Point {
    x: f64,
}

// Not a struct or an enum.
#[tool_type]
fn not_a_type() {}

// An option it does not have.
#[tool_type(rename_all = "camelCase")]
struct Line {
    length: f64,
}

fn main() {}
