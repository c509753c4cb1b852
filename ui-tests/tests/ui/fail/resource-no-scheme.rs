use toolwright::resource;

/// All notes.
#[resource(uri = "/notes/all")]
fn notes() -> String {
    String::new()
}

fn main() {}
