// What an application on the facade reads when a tool returns a type that is not an output.
use toolwright::tool;

struct Report {
    lines: usize,
}

/// Make a report.
#[tool]
fn make_report() -> Report {
    Report { lines: 0 }
}

fn main() {}
