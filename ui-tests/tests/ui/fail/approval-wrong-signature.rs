use toolwright::model::ApprovalNeed;
use toolwright::{ToolContext, tool};

// Returns a bool, not an `ApprovalNeed`.
fn returns_bool(_ctx: &ToolContext, _path: &str) -> bool {
    true
}

/// Write a file.
#[tool(safety = "dangerous", approval = returns_bool)]
fn write_a(path: String) -> String {
    path
}

// Takes a number where the tool has a string.
fn wrong_param(_ctx: &ToolContext, _path: &u64) -> ApprovalNeed {
    ApprovalNeed::Required
}

/// Write a file.
#[tool(safety = "dangerous", approval = wrong_param)]
fn write_b(path: String) -> String {
    path
}

// Forgets the context.
fn no_context(_path: &str) -> ApprovalNeed {
    ApprovalNeed::Required
}

/// Write a file.
#[tool(safety = "dangerous", approval = no_context)]
fn write_c(path: String) -> String {
    path
}

// Takes the parameter by value.
fn by_value(_ctx: &ToolContext, _path: String) -> ApprovalNeed {
    ApprovalNeed::Required
}

/// Write a file.
#[tool(safety = "dangerous", approval = by_value)]
fn write_d(path: String) -> String {
    path
}

/// Not a path.
#[tool(safety = "dangerous", approval = "no_context")]
fn write_e(path: String) -> String {
    path
}

fn main() {}
