use toolwright::resource;

/// All notes.
#[resource(uri = "notes://all", mime_type = "markdown")]
fn notes() -> String {
    String::new()
}

fn main() {}
