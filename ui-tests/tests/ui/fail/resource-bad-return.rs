use toolwright::resource;

/// All notes.
#[resource(uri = "notes://all")]
fn notes() -> u64 {
    3
}

fn main() {}
