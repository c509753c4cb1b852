use toolwright::tool;

#[tool(descripton = "Read a file.")]
fn read_file(path: String) -> String {
    path
}

fn main() {}

/// The per-call options, misspelt.
#[tool(timout = "30s", max_call = 3, aproval = rule)]
fn write_note(text: String) -> String {
    text
}

/// An option no one could have meant.
#[tool(retries = 3)]
fn send_mail(to: String) -> String {
    to
}
