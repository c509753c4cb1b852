use toolwright::resource;

/// One note.
#[resource(uri = "notes://{id}")]
fn note(id: Option<String>) -> String {
    id.unwrap_or_default()
}

fn main() {}
