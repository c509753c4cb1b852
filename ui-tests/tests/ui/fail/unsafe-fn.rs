use toolwright::tool;

/// Echo a value.
#[tool]
unsafe fn echo(value: String) -> String {
    value
}

fn main() {}
