use toolwright::resource;

/// One note.
#[resource(uri = "notes://{id")]
fn note(id: String) -> String {
    id
}

/// Search notes.
#[resource(uri = "notes://search{?query}")]
fn search(query: String) -> String {
    query
}

/// Two variables side by side.
#[resource(uri = "notes://{a}{b}")]
fn pair(a: String, b: String) -> String {
    a + &b
}

fn main() {}
