use toolwright::tool;

struct Report {
    lines: usize,
}

/// Count lines.
#[tool]
fn count_lines(text: String) -> Report {
    Report { lines: text.lines().count() }
}

/// Read bytes.
#[tool]
fn read_bytes(path: String) -> Vec<u8> {
    path.into_bytes()
}

fn main() {
    let _ = count_lines(String::new()).lines;
}
