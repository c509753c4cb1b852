use toolwright::model::{CompletionRequest, Completions};
use toolwright::resource;

fn ids(_: &CompletionRequest) -> Completions {
    Completions::none()
}

/// One note.
#[resource(uri = "notes://{id}", complete(idd = ids))]
fn note(id: String) -> String {
    id
}

fn main() {}
