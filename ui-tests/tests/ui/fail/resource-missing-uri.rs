use toolwright::resource;

/// The conventions.
#[resource(mime_type = "text/markdown")]
fn conventions() -> String {
    "Write tests.".into()
}

fn main() {}
