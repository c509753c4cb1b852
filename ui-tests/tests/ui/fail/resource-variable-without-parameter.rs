use toolwright::resource;

/// One note.
#[resource(uri = "notes://{id}")]
fn note(ident: String) -> String {
    ident
}

fn main() {}
