use toolwright::resource;

/// All notes.
#[resource(uri = "notes://all")]
fn notes(id: String) -> String {
    id
}

fn main() {}
