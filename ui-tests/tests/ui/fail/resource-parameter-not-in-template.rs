use toolwright::resource;

/// One note.
#[resource(uri = "notes://{folder}/{id}")]
fn note(folder: String, id: String, format: String) -> String {
    format!("{folder}/{id}.{format}")
}

fn main() {}
